from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'suite.html'

def root(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_run = resolve('run')
    l_0_figures = resolve('figures')
    l_0_trend = resolve('trend')
    l_0_chart = resolve('chart')
    l_0_tasks = resolve('tasks')
    try:
        t_1 = environment.filters['int']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'int' found.")
    try:
        t_2 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_3 = environment.filters['round']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'round' found.")
    try:
        t_4 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    yield '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Evaluation run '
    yield escape(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'id'))
    yield '</title>\n'
    template = environment.get_template('_style.html', 'suite.html')
    gen = template.root_render_func(template.new_context(context.get_all(), True, {}))
    try:
        for event in gen:
            yield event
    finally: gen.close()
    yield '</head>\n<body>\n<h1>Evaluation run '
    yield escape(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'id'))
    yield '</h1>\n<p>skill '
    yield escape((environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'skill_id') or ''))
    yield ' · split '
    yield escape((environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'split') or 'all'))
    yield ' · pass@'
    yield escape((environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'pass_k') or 1))
    if environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'mock'):
        pass
        yield ' · <strong>mock</strong>'
    yield '</p>\n<table>\n<tr><th>candidate</th><td>'
    yield escape((environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'candidate_path') or ''))
    yield '</td><td>'
    yield escape(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'execution_pass_rate'))
    yield '</td><td>'
    if (undefined(name='figures') if l_0_figures is missing else l_0_figures):
        pass
        yield escape(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'candidate'), 'words'))
        if (environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'pass_k') > 1):
            pass
            yield ' · pass^'
            yield escape(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'pass_k'))
            yield ' '
            yield escape((environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'candidate'), 'pass_hat_k') if (not t_4(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'candidate'), 'pass_hat_k'))) else 'not measured'))
    yield '</td></tr>\n<tr><th>baseline</th><td>'
    yield escape((environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'baseline_path') or '(none)'))
    yield '</td><td>'
    yield escape(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'baseline_pass_rate'))
    yield '</td><td>'
    if (undefined(name='figures') if l_0_figures is missing else l_0_figures):
        pass
        yield escape(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'baseline'), 'words'))
        if (environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'pass_k') > 1):
            pass
            yield ' · pass^'
            yield escape(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'pass_k'))
            yield ' '
            yield escape((environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'baseline'), 'pass_hat_k') if (not t_4(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'baseline'), 'pass_hat_k'))) else 'not measured'))
    yield '</td></tr>\n<tr><th>delta</th><td colspan="2">'
    yield escape(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'delta'))
    yield ' · verdict <strong class="'
    yield escape(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'verdict'))
    yield '">'
    yield escape(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'verdict'))
    yield '</strong></td><td>'
    if (undefined(name='figures') if l_0_figures is missing else l_0_figures):
        pass
        yield escape(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'comparison'), 'words'))
        yield ' (exact sign test on '
        yield escape((environment.getattr(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'comparison'), 'pairs'), 'only_candidate') + environment.getattr(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'comparison'), 'pairs'), 'only_baseline')))
        yield ' differing task(s))'
    yield '</td></tr>\n</table>\n'
    if (undefined(name='figures') if l_0_figures is missing else l_0_figures):
        pass
        if environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'flaky'):
            pass
            yield '<p>Flaky tasks (passed and failed on the same inputs):</p><ul>'
            for l_1_f in environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'flaky'):
                l_1_flaky_words = resolve('flaky_words')
                _loop_vars = {}
                pass
                yield '<li>'
                yield escape(context.call((undefined(name='flaky_words') if l_1_flaky_words is missing else l_1_flaky_words), l_1_f, _loop_vars=_loop_vars))
                yield '</li>'
            l_1_f = l_1_flaky_words = missing
            yield '</ul>'
        else:
            pass
            yield '<p>Flaky tasks: none</p>'
    if (t_2((undefined(name='trend') if l_0_trend is missing else l_0_trend)) > 1):
        pass
        yield '<h2>Pass rate over the suite\'s runs</h2>\n<p class="muted">'
        yield escape(t_2((undefined(name='trend') if l_0_trend is missing else l_0_trend)))
        yield ' runs, oldest first, each with its '
        yield escape(t_1(t_3((environment.getattr(environment.getattr(environment.getitem((undefined(name='trend') if l_0_trend is missing else l_0_trend), 0), 'rate'), 'level') * 100))))
        yield ' % interval; this run is filled.</p>\n<svg xmlns="http://www.w3.org/2000/svg" width="'
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'width'))
        yield '" height="'
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'height'))
        yield '" viewBox="0 0 '
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'width'))
        yield ' '
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'height'))
        yield '" role="img" aria-label="pass rate over '
        yield escape(t_2((undefined(name='trend') if l_0_trend is missing else l_0_trend)))
        yield ' runs">\n<line x1="'
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'left'))
        yield '" y1="'
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'zero'))
        yield '" x2="'
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'right'))
        yield '" y2="'
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'zero'))
        yield '" stroke="#d0d7de"/>\n<line x1="'
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'left'))
        yield '" y1="'
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'full'))
        yield '" x2="'
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'right'))
        yield '" y2="'
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'full'))
        yield '" stroke="#d0d7de" stroke-dasharray="3 3"/>\n<text x="0" y="'
        yield escape((environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'zero') + 4))
        yield '" font-size="9" fill="#57606a">0%</text>\n<text x="0" y="'
        yield escape((environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'full') + 4))
        yield '" font-size="9" fill="#57606a">100%</text>\n'
        for l_1_p in environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'points'):
            _loop_vars = {}
            pass
            yield '<line x1="'
            yield escape(environment.getattr(l_1_p, 'x'))
            yield '" y1="'
            yield escape(environment.getattr(l_1_p, 'low'))
            yield '" x2="'
            yield escape(environment.getattr(l_1_p, 'x'))
            yield '" y2="'
            yield escape(environment.getattr(l_1_p, 'high'))
            yield '" stroke="#8c959f" stroke-width="2"/>\n'
        l_1_p = missing
        yield '<path d="'
        yield escape(environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'path'))
        yield '" fill="none" stroke="#0969da" stroke-width="1.5"/>\n'
        for l_1_p in environment.getattr((undefined(name='chart') if l_0_chart is missing else l_0_chart), 'points'):
            l_1_rate_words = resolve('rate_words')
            _loop_vars = {}
            pass
            yield '<circle cx="'
            yield escape(environment.getattr(l_1_p, 'x'))
            yield '" cy="'
            yield escape(environment.getattr(l_1_p, 'y'))
            yield '" r="3" fill="'
            yield escape(('#0969da' if (environment.getattr(l_1_p, 'run') == environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'id')) else '#ffffff'))
            yield '" stroke="#0969da"><title>'
            yield escape(environment.getattr(l_1_p, 'run'))
            yield ': '
            yield escape(context.call((undefined(name='rate_words') if l_1_rate_words is missing else l_1_rate_words), environment.getattr(l_1_p, 'rate'), _loop_vars=_loop_vars))
            yield '</title></circle>\n'
        l_1_p = l_1_rate_words = missing
        yield '</svg>\n'
    if environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'warnings'):
        pass
        yield '<ul>'
        for l_1_w in environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'warnings'):
            _loop_vars = {}
            pass
            yield '<li>warning: '
            yield escape(l_1_w)
            yield '</li>'
        l_1_w = missing
        yield '</ul>'
    yield '<table><tr><th>task</th><th>split</th><th>candidate</th><th>baseline</th><th>differs</th><th>flaky</th></tr>\n'
    for l_1_t in (undefined(name='tasks') if l_0_tasks is missing else l_0_tasks):
        l_1_flaky = resolve('flaky')
        _loop_vars = {}
        pass
        yield '<tr><td>'
        yield escape(environment.getattr(l_1_t, 'task_id'))
        yield '</td><td>'
        yield escape((environment.getattr(l_1_t, 'split') or ''))
        yield '</td>\n<td>'
        if environment.getattr(l_1_t, 'candidate'):
            pass
            yield '<span class="'
            yield escape(('pass' if environment.getattr(environment.getattr(l_1_t, 'candidate'), 'passed') else 'fail'))
            yield '">'
            yield escape(('pass' if environment.getattr(environment.getattr(l_1_t, 'candidate'), 'passed') else 'fail'))
            yield '</span> ('
            yield escape(environment.getattr(environment.getattr(l_1_t, 'candidate'), 'attempts'))
            yield ')'
            if environment.getattr(environment.getattr(l_1_t, 'candidate'), 'reason'):
                pass
                yield ': '
                yield escape(environment.getattr(environment.getattr(l_1_t, 'candidate'), 'reason'))
        yield '</td>\n<td>'
        if environment.getattr(l_1_t, 'baseline'):
            pass
            yield '<span class="'
            yield escape(('pass' if environment.getattr(environment.getattr(l_1_t, 'baseline'), 'passed') else 'fail'))
            yield '">'
            yield escape(('pass' if environment.getattr(environment.getattr(l_1_t, 'baseline'), 'passed') else 'fail'))
            yield '</span>'
            if environment.getattr(environment.getattr(l_1_t, 'baseline'), 'reason'):
                pass
                yield ': '
                yield escape(environment.getattr(environment.getattr(l_1_t, 'baseline'), 'reason'))
        yield '</td>\n<td>'
        yield escape(('yes' if environment.getattr(l_1_t, 'differs') else ''))
        yield '</td><td>'
        yield escape(('yes' if (((environment.getattr(l_1_t, 'task_id'), 'candidate') in (undefined(name='flaky') if l_1_flaky is missing else l_1_flaky)) or ((environment.getattr(l_1_t, 'task_id'), 'baseline') in (undefined(name='flaky') if l_1_flaky is missing else l_1_flaky))) else ''))
        yield '</td></tr>\n'
    l_1_t = l_1_flaky = missing
    yield '</table>\n</body></html>\n'

blocks = {}
debug_info = '2=41&3=43&5=50&6=52&8=61&9=75&10=89&12=102&13=119&15=122&16=126&17=136&18=144&19=152&20=154&21=156&22=160&24=170&25=172&26=177&30=189&32=201&33=206&34=210&35=224&36=236'
# gatepost-template/2 12114313bd134743107416aa1af10155fae1520d2b78c714beb81ee702c5d2c4
