from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'case.md'

def root(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_case = resolve('case')
    try:
        t_1 = environment.filters['fence']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'fence' found.")
    try:
        t_2 = environment.filters['md']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'md' found.")
    pass
    yield '# Case '
    yield str(t_2(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'id')))
    yield ' · '
    yield str(t_2(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'title')))
    yield '\n\n- protocol: '
    yield str(t_2(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'protocol')))
    yield '\n- status: '
    yield str(t_2(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'status')))
    if environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'outcome'):
        pass
        yield ' · outcome: **'
        yield str(t_2(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'outcome')))
        yield '**'
    yield '\n- author (the agent run that wrote it): '
    yield str(t_2(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'author')))
    yield '\n- candidate: '
    yield str(t_2((environment.getattr(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'candidate'), 'path') or '(no path)')))
    yield '\n- revision: `'
    yield str(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'revision'))
    yield '`\n- basis: '
    l_1_loop = missing
    for (l_1_key, l_1_value), l_1_loop in LoopContext(context.call(environment.getattr(environment.getattr(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'candidate'), 'basis'), 'items')), undefined):
        _loop_vars = {}
        pass
        yield str(t_2(l_1_key))
        yield ' '
        yield str(t_2(l_1_value))
        if (not environment.getattr(l_1_loop, 'last')):
            pass
            yield ', '
    l_1_loop = l_1_key = l_1_value = missing
    yield '\n\n## Candidate\n\n'
    yield str(t_1(environment.getattr(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'candidate'), 'content')))
    yield '\n\n## Claims\n\n| | claim | value | why |\n|---|---|---|---|\n'
    for l_1_name in environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'claim_order'):
        l_1_SYMBOLS = resolve('SYMBOLS')
        _loop_vars = {}
        pass
        yield '| '
        yield str(environment.getitem((undefined(name='SYMBOLS') if l_1_SYMBOLS is missing else l_1_SYMBOLS), environment.getitem(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'claims'), l_1_name)))
        yield ' | '
        yield str(t_2(l_1_name))
        yield ' | '
        yield str(environment.getitem(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'claims'), l_1_name))
        yield ' | '
        yield str(t_2(environment.getitem(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'explanations'), l_1_name)))
        yield ' |\n'
    l_1_name = l_1_SYMBOLS = missing
    yield '\n## Evidence\n\n'
    if environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'evidence'):
        pass
        yield '| kind | result | producer | about | counts? | why |\n|---|---|---|---|---|---|\n'
        for l_1_e in environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'evidence'):
            _loop_vars = {}
            pass
            yield '| '
            yield str(t_2(environment.getattr(l_1_e, 'kind')))
            yield ' | '
            yield str(t_2(environment.getattr(l_1_e, 'result')))
            yield ' | '
            yield str(t_2(environment.getattr(l_1_e, 'producer')))
            yield ' | '
            yield str(t_2(environment.getattr(l_1_e, 'artifact')))
            yield ' `'
            yield str((environment.getattr(l_1_e, 'about') or '')[:12])
            yield '` | '
            yield str(t_2(environment.getattr(l_1_e, 'status')))
            yield ' | '
            yield str(t_2(environment.getattr(l_1_e, 'why')))
            yield ' |\n'
        l_1_e = missing
    else:
        pass
        yield 'No evidence recorded.\n'
    for l_1_w in environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'noise'):
        _loop_vars = {}
        pass
        yield '- warning: '
        yield str(t_2(l_1_w))
        yield '\n'
    l_1_w = missing
    for l_1_note in context.call(environment.getattr(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'undecided'), 'values')):
        _loop_vars = {}
        pass
        yield '- settled nothing: '
        yield str(t_2(l_1_note))
        yield '\n'
    l_1_note = missing
    yield '\n## Decisions\n\n'
    if environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'decisions'):
        pass
        for l_1_d in environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'decisions'):
            _loop_vars = {}
            pass
            yield '- '
            yield str(t_2(environment.getattr(l_1_d, 'at')))
            yield ' · **'
            yield str(t_2(environment.getattr(l_1_d, 'outcome')))
            yield '** by '
            yield str(t_2(environment.getattr(l_1_d, 'actor')))
            if environment.getattr(l_1_d, 'capability'):
                pass
                yield ' ('
                yield str(t_2(environment.getattr(l_1_d, 'capability')))
                yield ')'
            yield ' on revision `'
            yield str((environment.getattr(l_1_d, 'revision') or '')[:12])
            yield '`'
            if environment.getattr(l_1_d, 'note'):
                pass
                yield ': '
                yield str(t_2(environment.getattr(l_1_d, 'note')))
            yield '\n'
        l_1_d = missing
    else:
        pass
        yield 'No decision yet. Allowed now: '
        def t_3(fiter):
            for (l_1_name, l_1_o) in fiter:
                if environment.getattr(l_1_o, 'allowed'):
                    yield (l_1_name, l_1_o)
        l_1_loop = missing
        t_4 = 1
        for (l_1_name, l_1_o), l_1_loop in LoopContext(t_3(context.call(environment.getattr(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'outcomes'), 'items'))), undefined):
            _loop_vars = {}
            pass
            yield str(t_2(l_1_name))
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ', '
            t_4 = 0
        l_1_loop = l_1_name = l_1_o = missing
        if t_4:
            pass
            yield 'none'
        yield '.\n'

blocks = {}
debug_info = '1=25&3=29&4=31&6=38&7=40&8=42&9=45&14=56&20=58&21=63&26=73&29=76&30=80&35=98&36=102&38=105&39=109&44=113&45=115&46=119&50=141'
# gatepost-template/2 04473d4d6f0a7e3c0eedd4fb7df6b2f3e8f80dadce7de40c0f6de4fc0aa08e54
