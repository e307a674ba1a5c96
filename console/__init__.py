"""gatepost's people's side: the CLI and the Textual console. Never writes SQL.

Importing it changes nothing in the process (the console sets its frame rate when it starts: gatepost.render).
"""
