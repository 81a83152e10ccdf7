"""Chunk components: text chunks of both pages joined into pairs by aligned leaves, gap
filling and repair, kept in a union-find over the chunks of both pages."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChunkComponent:
    """Text chunks of both pages linked by aligned leaves (indices into ``text_chunks``)."""

    src_chunks: tuple[int, ...]
    tgt_chunks: tuple[int, ...]
    cost: float


class ChunkUnion:
    """Union-find over the chunks of both pages (target chunk j is node n_src + j)."""

    def __init__(self, size: int) -> None:
        self.root = list(range(size))

    def find(self, node: int) -> int:
        while self.root[node] != node:
            self.root[node] = self.root[self.root[node]]
            node = self.root[node]
        return node

    def join(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        self.root[max(a, b)] = min(a, b)
