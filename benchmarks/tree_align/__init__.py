"""Benchmarks of tree alignment (``services/tree_align``) and of the page content both sides
of it read (``content``): the page suite and its inputs (``suite``, ``families``, ``pagegen``,
``sitetext``, ``realpages``), the align-pages paths on it (``pages``, ``paths``), the decoder's
speed (``speed``, ``news``, ``wide``) and the trainer of the shipped tree model
(``default_model``)."""
