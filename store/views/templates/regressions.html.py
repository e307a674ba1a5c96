from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'regressions.html'

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
        t_2 = environment.filters['selectattr']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'selectattr' found.")
    try:
        t_3 = environment.tests['mapping']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No test named 'mapping' found.")
    try:
        t_4 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    yield '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Skill regressions</title>\n'
    template = environment.get_template('_style.html', 'regressions.html')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {'triaged': l_0_triaged}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    yield '</head>\n<body>\n<h1>Skill regressions</h1>\n'
    if t_4((undefined(name='previous') if l_0_previous is missing else l_0_previous)):
        pass
        yield '<p>First regressions report of this store: every skill is listed below.</p>\n'
    elif (not (undefined(name='changes') if l_0_changes is missing else l_0_changes)):
        pass
        yield '<p>Nothing changed since the previous report ('
        yield escape(environment.getattr((undefined(name='previous') if l_0_previous is missing else l_0_previous), 'at')[:19])
        yield 'Z).</p>\n'
    else:
        pass
        yield '<h2>Changed since the previous report ('
        yield escape(environment.getattr((undefined(name='previous') if l_0_previous is missing else l_0_previous), 'at')[:19])
        yield 'Z)</h2>\n<ul>\n'
        for l_1_c in (undefined(name='changes') if l_0_changes is missing else l_0_changes):
            _loop_vars = {}
            pass
            yield '<li>'
            yield escape(environment.getattr(l_1_c, 'skill'))
            yield ': '
            yield escape((environment.getattr(l_1_c, 'before') or 'new'))
            yield ' → <span class="'
            yield escape(environment.getattr(l_1_c, 'after'))
            yield '">'
            yield escape((environment.getattr(l_1_c, 'after') or 'gone'))
            yield '</span>'
            if environment.getattr(l_1_c, 'severity'):
                pass
                yield ' ('
                yield escape(environment.getattr(l_1_c, 'severity'))
                yield ')'
            yield '</li>\n'
        l_1_c = missing
        yield '</ul>\n'
    yield '<h2>Skills by state</h2>\n<table><tr><th></th><th>skill</th><th>state</th><th>severity</th><th>fail streak</th><th>pass streak</th><th>last run</th><th>failing assertions</th></tr>\n'
    l_1_loop = missing
    for l_1_r, l_1_loop in LoopContext((undefined(name='rows') if l_0_rows is missing else l_0_rows), undefined):
        l_1_STATE_SYMBOLS = resolve('STATE_SYMBOLS')
        _loop_vars = {}
        pass
        yield '<tr class="'
        yield escape(environment.getattr(l_1_r, 'state'))
        yield '"><td>'
        yield escape(context.call(environment.getattr((undefined(name='STATE_SYMBOLS') if l_1_STATE_SYMBOLS is missing else l_1_STATE_SYMBOLS), 'get'), environment.getattr(l_1_r, 'state'), '·', _loop_vars=_loop_vars))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_r, 'skill'))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_r, 'state'))
        yield '</td><td>'
        yield escape((environment.getattr(l_1_r, 'severity') or ''))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_r, 'fail_streak'))
        yield '</td><td>'
        yield escape(environment.getattr(l_1_r, 'pass_streak'))
        yield '</td><td>'
        yield escape((environment.getattr(l_1_r, 'last_run') or ''))
        yield '</td>\n<td>'
        l_2_loop = missing
        for l_2_f, l_2_loop in LoopContext(environment.getattr(l_1_r, 'failing'), undefined):
            _loop_vars = {}
            pass
            yield escape((environment.getattr(l_2_f, 'assertion') if t_3(l_2_f) else l_2_f))
            if (t_3(l_2_f) and environment.getattr(l_2_f, 'message')):
                pass
                yield ': '
                yield escape(environment.getattr(l_2_f, 'message'))
            if (not environment.getattr(l_2_loop, 'last')):
                pass
                yield '<br>'
        l_2_loop = l_2_f = missing
        yield '</td></tr>\n'
    l_1_loop = l_1_r = l_1_STATE_SYMBOLS = missing
    yield '</table>\n'
    l_0_triaged = t_1(context.eval_ctx, t_2(context, (undefined(name='rows') if l_0_rows is missing else l_0_rows), 'triage'))
    context.vars['triaged'] = l_0_triaged
    context.exported_vars.add('triaged')
    if (undefined(name='triaged') if l_0_triaged is missing else l_0_triaged):
        pass
        yield '<h2>Triage</h2>\n<ul>\n'
        for l_1_r in (undefined(name='triaged') if l_0_triaged is missing else l_0_triaged):
            _loop_vars = {}
            pass
            yield '<li>'
            yield escape(environment.getattr(l_1_r, 'skill'))
            yield ': '
            yield escape(environment.getattr(environment.getattr(l_1_r, 'triage'), 'kind'))
            yield ' by '
            yield escape((environment.getattr(environment.getattr(l_1_r, 'triage'), 'actor') or '?'))
            yield ' at '
            yield escape(environment.getattr(environment.getattr(l_1_r, 'triage'), 'at')[:19])
            yield 'Z'
            if environment.getattr(environment.getattr(l_1_r, 'triage'), 'until'):
                pass
                yield ' until '
                yield escape(environment.getattr(environment.getattr(l_1_r, 'triage'), 'until')[:19])
                yield 'Z'
            yield ': '
            yield escape((environment.getattr(environment.getattr(l_1_r, 'triage'), 'note') or ''))
            yield '</li>\n'
        l_1_r = missing
        yield '</ul>\n'
    yield '</body></html>\n'

blocks = {}
debug_info = '3=40&6=47&8=50&9=53&11=58&13=60&14=64&20=82&21=87&22=104&25=119&26=122&29=125&30=129'
# gatepost-template/2 75848f06e51ac385592b06b43eaf1c2bdd1bce63fc8a3b10d2a7241cb80a667e
