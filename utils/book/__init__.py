"""The book's presentation: tables, figures, renderings, widgets, the data viewer's files, chapters' runs.

Each module knows no dataset by name; a dataset folder adds its part through the hooks its declaration
finds by file convention (``render.py``, ``viewer.py``).
"""
