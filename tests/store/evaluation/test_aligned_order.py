"""verify checks a run's stored order by building it again from its task results (task_order.blocked_order). Most
runs have an import's shape (a candidate block and a baseline block listing the same tasks once each, in the same
order, under one split), built by a shorter path; on every input, of that shape or not, it must answer exactly what
the general path answers."""

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gatepost.store.evaluation import task_order
from gatepost.store.evaluation.task_order import Block

TASKS = [f"t{i}" for i in range(8)]


@st.composite
def runs(draw: st.DrawFn) -> tuple[str | None, Any, list[Block]]:
    """A previous run, its candidate passes (by task, or as its tasks and passes) and a run's blocks: mostly of an
    import's shape, else with a side missing, repeated, duplicated tasks, reordered or other tasks, several splits."""
    tasks = draw(st.lists(st.sampled_from(TASKS), unique=True, min_size=1, max_size=len(TASKS)))
    split = draw(st.sampled_from(["tuning", "heldout", None]))
    passes = st.one_of(st.integers(min_value=-1, max_value=2), st.just(256))
    candidate = Block("candidate", tasks, draw(st.lists(passes, min_size=len(tasks), max_size=len(tasks))),
                      [split] * len(tasks))
    baseline = Block("baseline", list(tasks), draw(st.lists(passes, min_size=len(tasks), max_size=len(tasks))),
                     [split] * len(tasks))
    blocks = [candidate, baseline]
    shape = draw(st.sampled_from(["aligned", "baseline first", "one side", "same side twice", "reordered", "duplicate",
                                  "other tasks", "several splits", "other side", "three blocks"]))
    if shape == "baseline first":
        blocks.reverse()
    elif shape == "one side":
        blocks = [draw(st.sampled_from(blocks))]
    elif shape == "same side twice":
        blocks = [candidate, candidate._replace(passed=list(baseline.passed))]
    elif shape == "reordered":
        blocks[1] = baseline._replace(tasks=draw(st.permutations(tasks)))
    elif shape == "duplicate":
        at = draw(st.integers(0, len(tasks) - 1))
        which = draw(st.integers(0, 1))
        block = blocks[which]
        blocks[which] = Block(block.side, [*block.tasks, block.tasks[at]], [*block.passed, draw(passes)],
                              [*block.splits, split])
    elif shape == "other tasks":
        other = draw(st.lists(st.sampled_from(TASKS), min_size=len(tasks), max_size=len(tasks), unique=True))
        blocks[1] = baseline._replace(tasks=other)
    elif shape == "several splits":
        blocks[1] = baseline._replace(splits=draw(st.lists(st.sampled_from(["tuning", "heldout", None]),
                                                           min_size=len(tasks), max_size=len(tasks))))
    elif shape == "other side":
        blocks[1] = baseline._replace(side="reference")
    elif shape == "three blocks":
        blocks.append(candidate)
    was = draw(st.lists(st.sampled_from([0, 1, 2, -1, 300]), min_size=len(TASKS), max_size=len(TASKS)))
    previous_tasks = draw(st.one_of(st.just(tasks), st.permutations(TASKS), st.lists(st.sampled_from(TASKS),
                                                                                     unique=True)))
    before: Any = draw(st.sampled_from(["none", "tuple", "dict"]))
    if before == "none":
        return None, {}, blocks
    if before == "tuple":
        return "run-0", (list(previous_tasks), was[:len(previous_tasks)]), blocks
    return "run-0", dict(zip(previous_tasks, was, strict=False)), blocks


@settings(max_examples=600, deadline=None)
@given(runs())
def test_the_aligned_path_answers_what_the_general_path_answers(run: tuple[str | None, Any, list[Block]]) -> None:
    previous, before, blocks = run
    general = task_order._general_order(previous, before, blocks)
    aligned = task_order._aligned_order(previous, before, blocks)
    assert aligned is None or aligned == general
    assert task_order.blocked_order(previous, before, blocks) == general


def test_an_imports_shape_takes_the_aligned_path_and_orders_changed_then_differing_tasks_first() -> None:
    """Three groups (changed since the previous run, candidate ≠ baseline, the rest), each in import order."""
    tasks = ["a", "b", "c", "d", "e", "f"]
    blocks = [Block("candidate", tasks, [1, 1, 0, 1, 0, 1], ["tuning"] * 6),
              Block("baseline", tasks, [1, 0, 0, 1, 1, 1], ["tuning"] * 6)]
    before = (tasks, [1, 1, 0, 0, 0, 1])  # d changed (now passes)
    built = task_order._aligned_order("run-0", before, blocks)
    assert built is not None and built == task_order._general_order("run-0", before, blocks)
    (entries,) = [entries for name, _, entries in built[0] if name == "all"]
    assert [task for task, _, _ in task_order.chunk_items("all", entries)] == ["d", "b", "e", "a", "c", "f"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([1, 255, 256, 257, 600, 769]), st.randoms(use_true_random=False),
       st.sampled_from(["none", "tuple", "dict"]), st.sampled_from(["tuning", None, ""]))
def test_a_long_run_is_cut_into_the_chunks_the_general_path_cuts(n: int, rnd: Any, before_as: str,
                                                                 split: str | None) -> None:
    """Lists longer than a chunk (TASK_CHUNK items), each of the three groups and each listed flag spanning chunks."""
    tasks = [f"task-{i}" for i in range(n)]
    passes = [[rnd.choice([0, 1, 1, 2]) for _ in tasks] for _ in range(3)]
    blocks = [Block("candidate", tasks, passes[0], [split] * n), Block("baseline", tasks, passes[1], [split] * n)]
    before: Any = {} if before_as == "none" else (list(tasks), passes[2]) if before_as == "tuple" else \
        dict(zip(tasks[::2], passes[2], strict=False))
    previous = None if before_as == "none" else "run-0"
    aligned = task_order._aligned_order(previous, before, blocks)
    assert aligned is not None
    assert aligned == task_order._general_order(previous, before, blocks)
