from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'case.html'

def root(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_case = resolve('case')
    try:
        t_1 = environment.filters['as_text']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'as_text' found.")
    try:
        t_2 = environment.filters['replace']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'replace' found.")
    pass
    yield '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Case '
    yield escape(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'id'))
    yield ' · '
    yield escape(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'title'))
    yield '</title>\n'
    template = environment.get_template('_style.html', 'case.html')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    yield '</head>\n<body>\n<h1>Case '
    yield escape(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'id'))
    yield ' · '
    yield escape(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'title'))
    yield '</h1>\n<p>protocol '
    yield escape(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'protocol'))
    yield ' · status '
    yield escape(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'status'))
    if environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'outcome'):
        pass
        yield ' · outcome <strong>'
        yield escape(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'outcome'))
        yield '</strong>'
    yield '</p>\n<table>\n<tr><th>author</th><td>'
    yield escape(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'author'))
    yield '</td></tr>\n<tr><th>candidate</th><td>'
    yield escape((environment.getattr(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'candidate'), 'path') or '(no path)'))
    yield '</td></tr>\n<tr><th>revision</th><td><code>'
    yield escape(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'revision'))
    yield '</code></td></tr>\n<tr><th>basis</th><td>'
    l_1_loop = missing
    for (l_1_key, l_1_value), l_1_loop in LoopContext(context.call(environment.getattr(environment.getattr(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'candidate'), 'basis'), 'items')), undefined):
        _loop_vars = {}
        pass
        yield escape(l_1_key)
        yield ' '
        yield escape(l_1_value)
        if (not environment.getattr(l_1_loop, 'last')):
            pass
            yield ', '
    l_1_loop = l_1_key = l_1_value = missing
    yield '</td></tr>\n</table>\n<h2>Candidate</h2>\n<pre>'
    yield escape(t_1(environment.getattr(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'candidate'), 'content')))
    yield '</pre>\n<h2>Claims</h2>\n<table><tr><th></th><th>claim</th><th>value</th><th>why</th></tr>\n'
    for l_1_name in environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'claim_order'):
        l_1_SYMBOLS = resolve('SYMBOLS')
        _loop_vars = {}
        pass
        yield '<tr class="'
        yield escape(environment.getitem(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'claims'), l_1_name))
        yield '"><td>'
        yield escape(environment.getitem((undefined(name='SYMBOLS') if l_1_SYMBOLS is missing else l_1_SYMBOLS), environment.getitem(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'claims'), l_1_name)))
        yield '</td><td>'
        yield escape(l_1_name)
        yield '</td><td>'
        yield escape(environment.getitem(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'claims'), l_1_name))
        yield '</td><td>'
        yield escape(environment.getitem(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'explanations'), l_1_name))
        yield '</td></tr>\n'
    l_1_name = l_1_SYMBOLS = missing
    yield '</table>\n<h2>Evidence</h2>\n'
    if environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'evidence'):
        pass
        yield '<table><tr><th>kind</th><th>result</th><th>producer</th><th>about</th><th>counts?</th><th>why</th></tr>\n'
        for l_1_e in environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'evidence'):
            _loop_vars = {}
            pass
            yield '<tr class="'
            yield escape(t_2(context.eval_ctx, environment.getattr(l_1_e, 'status'), ' ', '-'))
            yield '"><td>'
            yield escape(environment.getattr(l_1_e, 'kind'))
            yield '</td><td>'
            yield escape(environment.getattr(l_1_e, 'result'))
            yield '</td><td>'
            yield escape(environment.getattr(l_1_e, 'producer'))
            yield '</td><td>'
            yield escape(environment.getattr(l_1_e, 'artifact'))
            yield ' <code>'
            yield escape((environment.getattr(l_1_e, 'about') or '')[:12])
            yield '</code></td><td>'
            yield escape(environment.getattr(l_1_e, 'status'))
            yield '</td><td>'
            yield escape(environment.getattr(l_1_e, 'why'))
            yield '</td></tr>\n'
        l_1_e = missing
        yield '</table>\n'
    else:
        pass
        yield '<p class="muted">No evidence recorded.</p>'
    if (environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'noise') or environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'undecided')):
        pass
        yield '<ul>'
        for l_1_w in environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'noise'):
            _loop_vars = {}
            pass
            yield '<li>warning: '
            yield escape(l_1_w)
            yield '</li>'
        l_1_w = missing
        for l_1_note in context.call(environment.getattr(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'undecided'), 'values')):
            _loop_vars = {}
            pass
            yield '<li>settled nothing: '
            yield escape(l_1_note)
            yield '</li>'
        l_1_note = missing
        yield '</ul>'
    yield '<h2>Decisions</h2>\n'
    if environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'decisions'):
        pass
        yield '<ul>\n'
        for l_1_d in environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'decisions'):
            _loop_vars = {}
            pass
            yield '<li>'
            yield escape(environment.getattr(l_1_d, 'at'))
            yield ' · <strong>'
            yield escape(environment.getattr(l_1_d, 'outcome'))
            yield '</strong> by '
            yield escape(environment.getattr(l_1_d, 'actor'))
            if environment.getattr(l_1_d, 'capability'):
                pass
                yield ' ('
                yield escape(environment.getattr(l_1_d, 'capability'))
                yield ')'
            yield ' on revision <code>'
            yield escape((environment.getattr(l_1_d, 'revision') or '')[:12])
            yield '</code>'
            if environment.getattr(l_1_d, 'note'):
                pass
                yield ': '
                yield escape(environment.getattr(l_1_d, 'note'))
            yield '</li>\n'
        l_1_d = missing
        yield '</ul>\n'
    else:
        pass
        yield '<p class="muted">No decision yet. Allowed now: '
        def t_3(fiter):
            for (l_1_name, l_1_o) in fiter:
                if environment.getattr(l_1_o, 'allowed'):
                    yield (l_1_name, l_1_o)
        l_1_loop = missing
        t_4 = 1
        for (l_1_name, l_1_o), l_1_loop in LoopContext(t_3(context.call(environment.getattr(environment.getattr((undefined(name='case') if l_0_case is missing else l_0_case), 'outcomes'), 'items'))), undefined):
            _loop_vars = {}
            pass
            yield escape(l_1_name)
            if (not environment.getattr(l_1_loop, 'last')):
                pass
                yield ', '
            t_4 = 0
        l_1_loop = l_1_name = l_1_o = missing
        if t_4:
            pass
            yield 'none'
        yield '.</p>'
    yield '</body></html>\n'

blocks = {}
debug_info = '2=25&3=29&5=36&6=40&8=49&9=51&10=53&11=56&14=67&17=69&18=74&22=86&24=89&25=93&29=114&31=133&33=136&34=140&37=163'
# gatepost-template/2 b4204cc38b7b3955469998e36b0b068183159b4093ea8d2a2345c47cf8f1ae6a
