"""Documents kept compactly and read when needed: a corpus of a million documents must not become a
million Python objects before the first metric asks for one.

A gold set's ``documents`` is a ``Mapping[str, GoldDocument]``: a dict for YAML gold sets, a
:class:`LazyDocuments` for corpora read from BEIR folders or ir_datasets. Gold-mode metrics never
touch document texts; llm mode reads those of the retrieved documents; focus-time mode reads all.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pytest_tempoeval.data.gold_schema import GoldDocument


class LazyDocuments(Mapping[str, GoldDocument]):
    """Document ids known up front; each document read on first access, then kept."""

    def __init__(self, ids: Mapping[str, int]) -> None:
        self._ids = ids  # doc id -> the position the subclass reads it from
        self._read: dict[str, GoldDocument] = {}

    def __getitem__(self, doc_id: str) -> GoldDocument:
        document = self._read.get(doc_id)
        if document is None:
            position = self._ids[doc_id]  # KeyError: not in the corpus
            document = self._read[doc_id] = self.load(doc_id, position)
        return document

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._ids

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} documents, {len(self._read)} read)"

    def load(self, doc_id: str, position: int) -> GoldDocument:
        raise NotImplementedError

    def digest(self) -> str:
        """sha256 of the corpus's content, for the gold set's fingerprint, without reading every
        document. The default reads them all; a corpus kept as bytes hashes its bytes."""
        import hashlib  # at first use: not on the import path of every process

        digest = hashlib.sha256()
        for document in sorted(self.values(), key=lambda d: d.id):
            digest.update(repr((document.id, document.text, document.title)).encode())
        return digest.hexdigest()
