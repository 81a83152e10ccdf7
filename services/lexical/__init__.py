"""Lexical translation knowledge shared by the alignment stages: IBM Model 1 trained on the
text being aligned (``model1``) and bilingual dictionaries that seed it (``dictionary``)."""
