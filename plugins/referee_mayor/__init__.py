"""mayor rules plugin (under construction)."""
