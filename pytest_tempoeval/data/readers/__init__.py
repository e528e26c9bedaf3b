"""Readers of input files: line-numbered YAML/JSON trees and the vectorised TREC tokeniser."""
