"""Waiting on the console the way a person would: until its workers and messages are done (no sleeps)."""

from textual.pilot import Pilot


async def settle(pilot: Pilot) -> None:
    """Process messages and wait for every worker (reads, writes, leases) until nothing is left running."""
    app = pilot.app
    for _ in range(50):
        await pilot.pause()
        running = [w for w in app.workers if not w.is_finished]
        if not running:
            await pilot.pause()
            if not [w for w in app.workers if not w.is_finished]:
                return
            continue
        await app.workers.wait_for_complete(running)
    raise AssertionError("the console kept starting workers: it never settled")
