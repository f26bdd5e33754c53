"""Tests of the match runner (engine.match)."""
