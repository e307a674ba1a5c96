"""Drive the console headless over a store and save an SVG of every screen and dialog.

A screen class may list dialogs worth a picture as SCREENSHOT_STEPS:
[(name, [keys pressed on that screen to open it])]; each is closed with Escape.
"""

import asyncio
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from gatepost.app import GatepostApp
from gatepost.render import steady_cursor

SIZE = (140, 42)


async def detail_settled(app: Any) -> None:
    """Until the detail pane of the screen shown has followed the cursor (its idle timer fired and its
    read was drawn): the app's own event, no sleep."""
    event = getattr(app.screen, "detail_settled", None)
    if event is not None and not event.is_set():
        await asyncio.wait_for(event.wait(), timeout=60)  # a detail never drawn fails loudly, not forever


async def settle(pilot: Pilot[Any]) -> None:
    """Process messages and wait for every worker (reads, writes, leases) until nothing is left running."""
    app = pilot.app
    for _ in range(50):
        await pilot.pause()
        await detail_settled(app)
        running = [w for w in app.workers if not w.is_finished]
        if not running:
            await pilot.pause()
            if not [w for w in app.workers if not w.is_finished]:
                return
            continue
        try:
            await app.workers.wait_for_complete(running)
        except WorkerCancelled:
            continue  # a newer request replaced that read (an exclusive worker): wait for what is left
    raise RuntimeError("the console kept starting workers: it never settled")


async def _shoot(db_path: Path, person: str, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    saved: list[Path] = []
    app = GatepostApp(db_path, person=person)
    async with app.run_test(size=SIZE) as pilot:

        async def save(name: str) -> None:
            await settle(pilot)  # a list still loading would differ between runs
            fields = list(app.screen.query("Input, TextArea"))
            for _ in range(40):  # under load a dialog focuses its field a little later: wait until it has
                if not fields or app.screen.focused is not None and all(
                        field.has_focus == (field is app.screen.focused) for field in fields):
                    break
                await pilot.pause(0.05)
            for field in fields:  # a blinking cursor would make two runs differ: stop it, shown where focused
                field.cursor_blink = False  # type: ignore[attr-defined]
            await pilot.pause()
            for field in fields:  # a blink tick already queued may have hidden it: set it once more
                steady_cursor(field)
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            path = out / f"{name}.svg"
            app.save_screenshot(filename=path.name, path=str(out))
            saved.append(path)

        for mode, key, _label, _target in app.screen_specs:
            await pilot.press(key)
            await pilot.pause()
            await save(f"{int(key):02d}-{mode}")
            for step, keys in getattr(type(app.screen), "SCREENSHOT_STEPS", []):
                for k in keys:
                    await pilot.press(k)
                    await pilot.pause()
                await save(f"{int(key):02d}-{mode}-{step}")
                await pilot.press("escape")
                await pilot.pause()
        await pilot.press("1")
        await pilot.press("question_mark")
        await save("90-help")
        await pilot.press("escape")
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"case")
        await pilot.pause(0.5)
        await save("91-command-palette")
        await pilot.press("escape")
        await pilot.press("ctrl+t")
        await pilot.press("2")
        await save("92-cases-light-theme")
        await pilot.press("ctrl+t")
    return saved


def take_screenshots(db_path: Path, person: str, out: Path) -> list[Path]:
    """Save the SVGs into `out` and return their paths."""
    return asyncio.run(_shoot(Path(db_path), person, Path(out)))
