"""Layer 2, data: what users bring. Focus times, gold sets, runs, and the readers of their files.

Imports only the foundations (errors, files, constants). Nothing here knows about metrics.
"""
