"""presidente rules plugin (under construction)."""
