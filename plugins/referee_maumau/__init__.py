"""maumau rules plugin (under construction)."""
