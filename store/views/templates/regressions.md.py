from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'regressions.md'

def root(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_previous = resolve('previous')
    l_0_changes = resolve('changes')
    l_0_rows = resolve('rows')
    l_0_triaged = missing
    try:
        t_1 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_2 = environment.filters['md']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'md' found.")
    try:
        t_3 = environment.filters['selectattr']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'selectattr' found.")
    try:
        t_4 = environment.tests['mapping']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No test named 'mapping' found.")
    try:
        t_5 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    yield '# Skill regressions\n\n'
    if t_5((undefined(name='previous') if l_0_previous is missing else l_0_previous)):
        pass
        yield 'First regressions report of this store: every skill is listed below.\n'
    elif (not (undefined(name='changes') if l_0_changes is missing else l_0_changes)):
        pass
        yield 'Nothing changed since the previous report ('
        yield str(environment.getattr((undefined(name='previous') if l_0_previous is missing else l_0_previous), 'at')[:19])
        yield 'Z).\n'
    else:
        pass
        yield '## Changed since the previous report ('
        yield str(environment.getattr((undefined(name='previous') if l_0_previous is missing else l_0_previous), 'at')[:19])
        yield 'Z)\n\n'
        for l_1_c in (undefined(name='changes') if l_0_changes is missing else l_0_changes):
            _loop_vars = {}
            pass
            yield '- '
            yield str(t_2(environment.getattr(l_1_c, 'skill')))
            yield ': '
            yield str(t_2((environment.getattr(l_1_c, 'before') or 'new')))
            yield ' → '
            yield str(t_2((environment.getattr(l_1_c, 'after') or 'gone')))
            if environment.getattr(l_1_c, 'severity'):
                pass
                yield ' ('
                yield str(environment.getattr(l_1_c, 'severity'))
                yield ')'
            yield '\n'
        l_1_c = missing
    yield '\n## Skills by state\n\n| | skill | state | severity | fail streak | pass streak | last run | failing assertions |\n|---|---|---|---|---|---|---|---|\n'
    l_1_loop = missing
    for l_1_r, l_1_loop in LoopContext((undefined(name='rows') if l_0_rows is missing else l_0_rows), undefined):
        l_1_STATE_SYMBOLS = resolve('STATE_SYMBOLS')
        _loop_vars = {}
        pass
        yield '| '
        yield str(context.call(environment.getattr((undefined(name='STATE_SYMBOLS') if l_1_STATE_SYMBOLS is missing else l_1_STATE_SYMBOLS), 'get'), environment.getattr(l_1_r, 'state'), '·', _loop_vars=_loop_vars))
        yield ' | '
        yield str(t_2(environment.getattr(l_1_r, 'skill')))
        yield ' | '
        yield str(t_2(environment.getattr(l_1_r, 'state')))
        yield ' | '
        yield str((environment.getattr(l_1_r, 'severity') or ''))
        yield ' | '
        yield str(environment.getattr(l_1_r, 'fail_streak'))
        yield ' | '
        yield str(environment.getattr(l_1_r, 'pass_streak'))
        yield ' | '
        yield str(t_2((environment.getattr(l_1_r, 'last_run') or '')))
        yield ' | '
        l_2_loop = missing
        for l_2_f, l_2_loop in LoopContext(environment.getattr(l_1_r, 'failing'), undefined):
            _loop_vars = {}
            pass
            yield str(t_2((environment.getattr(l_2_f, 'assertion') if t_4(l_2_f) else l_2_f)))
            if (t_4(l_2_f) and environment.getattr(l_2_f, 'message')):
                pass
                yield ': '
                yield str(t_2(environment.getattr(l_2_f, 'message')))
            if (not environment.getattr(l_2_loop, 'last')):
                pass
                yield '; '
        l_2_loop = l_2_f = missing
        yield ' |\n'
    l_1_loop = l_1_r = l_1_STATE_SYMBOLS = missing
    l_0_triaged = t_1(context.eval_ctx, t_3(context, (undefined(name='rows') if l_0_rows is missing else l_0_rows), 'triage'))
    context.vars['triaged'] = l_0_triaged
    context.exported_vars.add('triaged')
    if (undefined(name='triaged') if l_0_triaged is missing else l_0_triaged):
        pass
        yield '\n## Triage\n\n'
        for l_1_r in (undefined(name='triaged') if l_0_triaged is missing else l_0_triaged):
            _loop_vars = {}
            pass
            yield '- '
            yield str(t_2(environment.getattr(l_1_r, 'skill')))
            yield ': '
            yield str(environment.getattr(environment.getattr(l_1_r, 'triage'), 'kind'))
            yield ' by '
            yield str(t_2((environment.getattr(environment.getattr(l_1_r, 'triage'), 'actor') or '?')))
            yield ' at '
            yield str(environment.getattr(environment.getattr(l_1_r, 'triage'), 'at')[:19])
            yield 'Z'
            if environment.getattr(environment.getattr(l_1_r, 'triage'), 'until'):
                pass
                yield ' until '
                yield str(environment.getattr(environment.getattr(l_1_r, 'triage'), 'until')[:19])
                yield 'Z'
            yield ': '
            yield str(t_2((environment.getattr(environment.getattr(l_1_r, 'triage'), 'note') or '')))
            yield '\n'
        l_1_r = missing

blocks = {}
debug_info = '3=46&5=49&6=52&8=57&10=59&11=63&20=77&21=82&23=111&24=114&28=117&29=121'
# gatepost-template/2 0bdf48ad935db1afef6726260be7671e8721f61cebfa00c81f15e84007c74707
