"""A toy fifth dataset for tests/test_adding_a_dataset.py: a parser and a renderer in a few lines.

Its file is JSON Lines, one dialogue per line::

    {"id": "d1", "topic": "tea", "turns": [{"speaker": "asker", "text": "..."},
                                           {"speaker": "expert", "text": "...", "knowledge": "..."}]}

``knowledge`` (expert turns only) is the one sentence the expert used.
"""
