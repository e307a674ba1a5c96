"""Waiting on the console the way a person would: until its workers and messages are done (no sleeps)."""

from gatepost.screenshots import settle

__all__ = ["settle"]
