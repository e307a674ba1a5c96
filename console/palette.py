"""The command palette's provider: jump to any case, skill, draft, proposal or run."""

from functools import partial
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual.command import DiscoveryHit, Hit, Hits, Provider

from gatepost.safe import one_line
from gatepost.store.views import find

if TYPE_CHECKING:  # the app imports this provider: only the type checker imports it back
    from gatepost.app import GatepostApp


class StoreItems(Provider):
    """Searches the store by id or title (SQL LIKE), then ranks with Textual's fuzzy matcher."""

    @property
    def gp_app(self) -> "GatepostApp":
        """`self.app`, typed: this provider is only registered on the GatepostApp."""
        return cast("GatepostApp", self.app)

    def _display(self, item: dict[str, Any]) -> Text:
        text = Text()
        text.append(f"{item['kind']:<8} ", style="bold")
        text.append(one_line(item["key"], 28))
        if item["title"] != item["key"]:
            text.append("  " + one_line(item["title"], 60))
        return text

    def _open(self, item: dict[str, Any]) -> None:
        self.gp_app.open_item(item["mode"], item["key"])

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for item in find(self.gp_app.db, query):
            haystack = f"{item['kind']} {item['key']} {item['title']}"
            score = matcher.match(haystack) or 0.05
            yield Hit(score, self._display(item), partial(self._open, item),
                      text=f"{item['kind']} {item['key']} {item['title']}", help=one_line(item["detail"], 80))

    async def discover(self) -> Hits:
        for item in find(self.gp_app.db, "", limit=3):
            yield DiscoveryHit(self._display(item), partial(self._open, item),
                               text=f"{item['kind']} {item['key']}", help=one_line(item["detail"], 80))
