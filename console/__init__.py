"""gatepost's people's side: the CLI and the Textual console. Never writes SQL."""
