"""Contest intake (issue 28): strangers' submissions taken in safely. `unpack` opens an archive
into a folder of its own under caps; `manifest` reads and checks a submission's `bot.toml`."""
