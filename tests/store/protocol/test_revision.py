"""The candidate revision: sha256 of canonical JSON of content + basis, as DESIGN.md defines it."""

import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gatepost.store.protocol import candidate_revision, canonical_json

BASIS = {"baseline": "b-7", "question_set": "qs-3", "data_revision": "d-12", "design": "design-2"}


def test_canonical_json_sorts_keys_without_spaces_and_keeps_unicode():
    assert canonical_json({"b": 1, "a": "é→✔"}) == '{"a":"é→✔","b":1}'


def test_revision_is_the_documented_hash():
    expected = hashlib.sha256(
        '{"basis":{"baseline":"b-7","data_revision":"d-12","design":"design-2","question_set":"qs-3"},'
        '"content":"Réponds en français."}'.encode()).hexdigest()
    assert candidate_revision("Réponds en français.", BASIS) == expected


def test_every_basis_field_moves_the_revision():
    base = candidate_revision("x", BASIS)
    for field in BASIS:
        assert candidate_revision("x", {**BASIS, field: BASIS[field] + "'"}) != base
    assert candidate_revision("y", BASIS) != base


text = st.text(max_size=20)


@settings(max_examples=60, deadline=None)
@given(content=st.one_of(text, st.dictionaries(text, text, max_size=4)), basis=st.fixed_dictionaries(
    {k: text for k in BASIS}))
def test_revision_ignores_key_order(content, basis):
    reordered = json.loads(json.dumps(dict(reversed(list(basis.items())))))
    assert candidate_revision(content, basis) == candidate_revision(content, reordered)
