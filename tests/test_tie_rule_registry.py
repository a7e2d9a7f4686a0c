"""Issue 20: a tie rule is one registry object (``bpe_core.registry.tie_rules``).

The option list, the checker's list of rules, the lesson text and every query read names, descriptions and the
count from :data:`bpe_core.registry.tie_rules.RULES`; a rule built here reaches the option list and the ordering code
through a registry passed in, with no global changed.
"""

from __future__ import annotations

import pytest

from bpe_core import TIE_BREAKS, TIE_RULE_SPECS, OptionError, TieRule, train
from bpe_core.analysis.checking import FIND_TRAININGS, PRETOKENIZER_CHOICES, TIE_RULES
from bpe_core.registry.options import OPTIONS, check_training, tie_rule_option
from bpe_core.registry.tie_rules import RULES, pick, registry, tie_rule
from viz.lessons import LESSON_TEXTS


class LongestFirstRule(TieRule):
    """A test rule: the tied pair whose left symbol is longest wins (then the shortest right symbol)."""

    name = "longest_first"
    description = "the tied pair with the longest left symbol wins (a test rule)."
    short = "the longest left symbol"

    def symbol_key(self, string: str, hf_rank: int) -> object:
        return -len(string)

    def describe(self, strings, hf_rank, left, right, where=None) -> str:
        return f"{strings[left]!r} is {len(strings[left])} long (longest wins)"


def test_every_view_of_the_rules_reads_the_registry():
    assert TIE_RULE_SPECS is RULES
    assert TIE_BREAKS is OPTIONS["tie_break"].choices
    assert dict(TIE_BREAKS) == {name: rule.description for name, rule in RULES.items()}
    assert TIE_RULES == tuple(RULES)
    assert FIND_TRAININGS == len(PRETOKENIZER_CHOICES) * len(RULES) == 24
    ties = LESSON_TEXTS[1].explanation
    assert "the four rules" in ties and all(rule.short in ties for rule in RULES.values())
    assert [name for name, rule in RULES.items() if rule.positional] == ["first_seen"]


def test_a_new_rule_reaches_the_option_list_and_the_ordering_in_one_definition():
    rule = LongestFirstRule()
    rules = registry([*RULES.values(), rule])
    option = tie_rule_option(rules)
    assert option.check("longest_first") == "longest_first" and option.choices["longest_first"] == rule.description
    assert tie_rule("longest_first", rules) is rule
    strings, hf_rank = ["a", "bb", "ccc"], [0, 1, 2]
    tied = [(0, 1), (2, 0), (1, 2)]
    assert rule.order(tied, strings, hf_rank) == [(2, 0), (1, 2), (0, 1)]
    assert pick(rule, {(0, 1): 3, (2, 0): 3, (1, 2): 2}, strings, hf_rank) == (2, 0)
    assert rule.describe(strings, hf_rank, 2, 0) == "'ccc' is 3 long (longest wins)"
    # the global registry and option list are untouched
    assert "longest_first" not in RULES and "longest_first" not in TIE_BREAKS
    with pytest.raises(OptionError, match="tie_break"):
        check_training(num_merges=1, tie_break="longest_first")


def test_the_registry_is_read_only_and_checks_its_rules():
    with pytest.raises(TypeError):
        RULES["x"] = LongestFirstRule()  # type: ignore[index]
    with pytest.raises(ValueError, match="name of its own"):
        registry([LongestFirstRule(), LongestFirstRule()])
    with pytest.raises(ValueError, match="description"):
        registry([TieRule()])


def test_result_queries_ask_the_rule_object():
    """A step's tied pairs are in its rule's order and its tie keys are the rule's ``describe``."""
    text = "ab ba cd dc"
    first = train(text, num_merges=1, pretokenizer="none", tie_break="first_seen", min_frequency=1).steps[0]
    assert first.pair == ("a", "b") and first.tie_keys[0] == "first seen in word 1 'ab ba cd dc' at offset 0"
    for name in ("alphabetical", "subword_nmt", "hf_tokenizers"):
        result = train(text, num_merges=1, pretokenizer="none", tie_break=name, min_frequency=1)
        step, rule, strings = result.steps[0], RULES[name], result.symbol_strings
        assert step.tie_break == name and step.num_tied == 10  # every adjacent pair occurs once
        ids = [(strings.index(a), strings.index(b)) for a, b in step.tied]
        assert rule.order(ids, strings, result.hf_ranks) == ids
        assert list(step.tie_keys) == [rule.describe(strings, result.hf_ranks, a, b) for a, b in ids]
