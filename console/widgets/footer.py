"""The footer, rebuilt once per burst of key changes and only when the keys it shows changed.

Textual's Footer recomposes (removes and mounts every key) on each `refresh_bindings`; showing a
screen asks for that several times (mount, focus, resume, the first detail), and every rebuild
re-applies the stylesheet to each key: on a screen's first page that was a seventh of its time.
"""

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class QuietFooter(Footer):
    """A Footer that shows the same keys, recomposed at most once per refresh and only on a change."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._recompose_pending = False
        self._shown: tuple[Any, ...] | None = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._recompose_pending:
            self._recompose_pending = True
            self.call_after_refresh(self._recompose_if_changed)

    def _keys(self) -> tuple[Any, ...]:
        """What compose() draws from: every shown binding's key, label, action, state and tooltip."""
        return tuple((binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                      enabled, tooltip, binding.show)
                     for _node, binding, enabled, tooltip in self.screen.active_bindings.values())

    async def _recompose_if_changed(self) -> None:
        self._recompose_pending = False
        if not self.is_attached:
            return
        keys = self._keys()
        if keys == self._shown:
            return
        self._shown = keys
        await self.recompose()
