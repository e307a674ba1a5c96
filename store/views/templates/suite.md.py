from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'suite.md'

def root(context, missing=missing, environment=environment):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_run = resolve('run')
    l_0_figures = resolve('figures')
    l_0_trend = resolve('trend')
    l_0_spark = resolve('spark')
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
        t_3 = environment.filters['md']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'md' found.")
    try:
        t_4 = environment.filters['round']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'round' found.")
    try:
        t_5 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    yield '# Evaluation run '
    yield str(t_3(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'id')))
    yield '\n\n- skill: '
    yield str(t_3((environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'skill_id') or '')))
    yield ' · split: '
    yield str(t_3((environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'split') or 'all')))
    yield ' · pass@'
    yield str((environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'pass_k') or 1))
    if environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'mock'):
        pass
        yield ' · **mock**'
    yield '\n- candidate: '
    yield str(t_3((environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'candidate_path') or '')))
    yield ' · baseline: '
    yield str(t_3((environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'baseline_path') or '(none)')))
    yield '\n- pass rate: candidate '
    yield str(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'execution_pass_rate'))
    yield ' · baseline '
    yield str(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'baseline_pass_rate'))
    yield ' · delta '
    yield str(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'delta'))
    yield ' · verdict **'
    yield str(t_3(environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'verdict')))
    yield '**\n'
    if (undefined(name='figures') if l_0_figures is missing else l_0_figures):
        pass
        yield '- candidate: '
        yield str(t_3(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'candidate'), 'words')))
        if (environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'pass_k') > 1):
            pass
            yield ' · pass^'
            yield str(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'pass_k'))
            yield ' '
            yield str((environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'candidate'), 'pass_hat_k') if (not t_5(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'candidate'), 'pass_hat_k'))) else 'not measured'))
        yield '\n- baseline: '
        yield str(t_3(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'baseline'), 'words')))
        if (environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'pass_k') > 1):
            pass
            yield ' · pass^'
            yield str(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'pass_k'))
            yield ' '
            yield str((environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'baseline'), 'pass_hat_k') if (not t_5(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'baseline'), 'pass_hat_k'))) else 'not measured'))
        yield '\n- delta: '
        yield str(t_3(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'comparison'), 'words')))
        yield ' ('
        yield str(environment.getattr(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'comparison'), 'pairs'), 'only_candidate'))
        yield ' task(s) only the candidate passes, '
        yield str(environment.getattr(environment.getattr(environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'comparison'), 'pairs'), 'only_baseline'))
        yield ' only the baseline; exact sign test)\n'
        if environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'flaky'):
            pass
            yield '- flaky tasks (passed and failed on the same inputs):\n'
            for l_1_f in environment.getattr((undefined(name='figures') if l_0_figures is missing else l_0_figures), 'flaky'):
                l_1_flaky_words = resolve('flaky_words')
                _loop_vars = {}
                pass
                yield '  - '
                yield str(t_3(context.call((undefined(name='flaky_words') if l_1_flaky_words is missing else l_1_flaky_words), l_1_f, _loop_vars=_loop_vars)))
                yield '\n'
            l_1_f = l_1_flaky_words = missing
        else:
            pass
            yield '- flaky tasks: none\n'
    if (t_2((undefined(name='trend') if l_0_trend is missing else l_0_trend)) > 1):
        pass
        yield '- the suite over its last '
        yield str(t_2((undefined(name='trend') if l_0_trend is missing else l_0_trend)))
        yield ' runs: '
        yield str((undefined(name='spark') if l_0_spark is missing else l_0_spark))
        yield ' ('
        l_1_loop = missing
        for l_1_p, l_1_loop in LoopContext((undefined(name='trend') if l_0_trend is missing else l_0_trend), undefined):
            _loop_vars = {}
            pass
            yield str(t_1(t_4((environment.getattr(environment.getattr(l_1_p, 'rate'), 'rate') * 100))))
            yield str(('' if environment.getattr(l_1_loop, 'last') else ', '))
        l_1_loop = l_1_p = missing
        yield ' %)\n'
    for l_1_w in (environment.getattr((undefined(name='run') if l_0_run is missing else l_0_run), 'warnings') or []):
        _loop_vars = {}
        pass
        yield '- warning: '
        yield str(t_3(l_1_w))
        yield '\n'
    l_1_w = missing
    yield '\n| task | split | candidate | baseline | differs | flaky |\n|---|---|---|---|---|---|\n'
    for l_1_t in (undefined(name='tasks') if l_0_tasks is missing else l_0_tasks):
        l_1_flaky = resolve('flaky')
        _loop_vars = {}
        pass
        yield '| '
        yield str(t_3(environment.getattr(l_1_t, 'task_id')))
        yield ' | '
        yield str(t_3((environment.getattr(l_1_t, 'split') or '')))
        yield ' | '
        if environment.getattr(l_1_t, 'candidate'):
            pass
            yield str(('pass' if environment.getattr(environment.getattr(l_1_t, 'candidate'), 'passed') else 'fail'))
            yield ' ('
            yield str(environment.getattr(environment.getattr(l_1_t, 'candidate'), 'attempts'))
            yield ' attempt'
            yield str(('s' if (environment.getattr(environment.getattr(l_1_t, 'candidate'), 'attempts') != 1) else cond_expr_undefined("the inline if-expression on line 32 in 'suite.md' evaluated to false and no else section was defined.")))
            yield ')'
            if environment.getattr(environment.getattr(l_1_t, 'candidate'), 'reason'):
                pass
                yield ': '
                yield str(t_3(environment.getattr(environment.getattr(l_1_t, 'candidate'), 'reason')))
        yield ' | '
        if environment.getattr(l_1_t, 'baseline'):
            pass
            yield str(('pass' if environment.getattr(environment.getattr(l_1_t, 'baseline'), 'passed') else 'fail'))
            if environment.getattr(environment.getattr(l_1_t, 'baseline'), 'reason'):
                pass
                yield ': '
                yield str(t_3(environment.getattr(environment.getattr(l_1_t, 'baseline'), 'reason')))
        yield ' | '
        yield str(('yes' if environment.getattr(l_1_t, 'differs') else ''))
        yield ' | '
        yield str(('yes' if (((environment.getattr(l_1_t, 'task_id'), 'candidate') in (undefined(name='flaky') if l_1_flaky is missing else l_1_flaky)) or ((environment.getattr(l_1_t, 'task_id'), 'baseline') in (undefined(name='flaky') if l_1_flaky is missing else l_1_flaky))) else ''))
        yield ' |\n'
    l_1_t = l_1_flaky = missing

blocks = {}
debug_info = '1=47&3=49&5=58&6=62&7=70&8=73&10=81&12=89&13=95&15=98&16=103&22=109&23=112&25=124&26=128&31=132&32=137'
# gatepost-template/2 264e65ab758f5b74bb76aa1d39f5dd2a3159d1051cc1b00cf6a0f1afe8eb8e46
