"""Compiled core of fst: split space, memo store, search, segmentation, export."""
