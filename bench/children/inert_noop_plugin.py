"""An empty pytest plugin: with autoloading off, the side without ours loads it with ``-p``, so
both sides pay pytest's scan of the installed entry points."""
