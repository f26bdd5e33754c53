"""Tests of the match runner (tools.match)."""
