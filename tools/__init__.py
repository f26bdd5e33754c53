"""Development tools that are not part of the engine or the bot (run as ``python -m tools.<name>``)."""
