"""The pair classifier: the probability that an aligned sentence pair is a translation (the
exported ``score``; no section of docs/methods.md, it is not in the specification).

``pair_features`` computes a page pair's features of each pair (with the page's own Model 1
lexicon, ``pair_lexicon``); ``pair_model`` holds the boosted trees, their calibration and
threshold and loads the shipped ``pair_model.json``; ``pair_threshold`` reads the threshold
alone (without loading the trees); ``pair_training`` builds the labelled pairs from the
kit's gold and synthetic wrong pairs and trains the model (``paramine train-pair-model``).
"""
