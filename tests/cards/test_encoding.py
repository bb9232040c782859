"""Card parsing and formatting: the forms people type, canonical output, and errors that name the token."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pokerlab import DuplicateCardError, InvalidCardError, format_cards, parse_card, parse_cards
from pokerlab.cards.encoding import cards_to_mask, mask_to_cards


def test_encoding_is_four_times_rank_plus_suit():
    assert parse_card("2c") == 0
    assert parse_card("2s") == 3
    assert parse_card("Ac") == 48
    assert parse_card("As") == 51
    assert parse_card("Td") == 4 * 8 + 1


@pytest.mark.parametrize("text", ["AsKd", "As Kd", "as,kd", "AS, KD", "  As  ;Kd "])
def test_the_forms_people_type(text):
    assert parse_cards(text) == [51, 45]
    assert format_cards(parse_cards(text)) == "AsKd"


def test_ten_as_10_or_t():
    assert parse_cards("10h9h") == parse_cards("Th9h") == [34, 30]


def test_sequences_of_strings_and_indices():
    assert parse_cards(["As", "Kd"]) == [51, 45]
    assert parse_cards([51, 45]) == [51, 45]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Ax", "'Ax': unknown suit 'x'"),
        ("Xs", "'Xs': unknown rank 'X'"),
        ("AsK", "'K': missing suit"),
        ("1s", "unknown rank '1'"),
    ],
)
def test_invalid_cards_name_the_token_and_reason(text, message):
    with pytest.raises(InvalidCardError, match=message.replace("(", r"\(")):
        parse_cards(text)


def test_duplicate_card_is_named():
    with pytest.raises(DuplicateCardError, match="duplicate card As"):
        parse_cards("As Kd as")


def test_index_out_of_range():
    with pytest.raises(InvalidCardError, match="outside 0..51"):
        parse_cards([52])


def test_errors_are_value_errors():
    assert issubclass(InvalidCardError, ValueError) and issubclass(DuplicateCardError, ValueError)


@given(st.lists(st.integers(0, 51), unique=True, max_size=10), st.sampled_from(["", " ", ",", ", "]))
def test_format_parse_round_trip(cards, separator):
    assert parse_cards(format_cards(cards, separator)) == cards
    assert parse_cards(format_cards(cards).lower()) == cards
    assert mask_to_cards(cards_to_mask(cards)) == sorted(cards)
