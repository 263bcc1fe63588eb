"""Samurai Sword: card and character content, rule options, policies, the statistics the
kernels count, the kernel driver and the step-by-step handle (`simcli replay`).

One module per part, named the same in every game: content (the content file's schema,
loading and checking it, the content without an option's cards), policies (the policies
and the search), game (the Game declaration and kernel driver), stats (statistics under
plain names for the report) and handle (`simcli replay`'s step-by-step play and its log in
words). Every public name is re-exported here."""

from simcli.games.samurai_sword.content import (
    ABILITIES,
    EFFECTS,
    MAX_P,
    MIN_P,
    OPTION_NAMES,
    ROLES,
    Ability,
    CardFile,
    CharacterFile,
    CharactersFile,
    DeckFile,
    Effect,
    HonorFile,
    MetaFile,
    MultiplierFile,
    Name,
    RoleName,
    RulesFile,
    Setup,
    SetupFile,
    SwordContent,
    SwordFile,
    parse_content,
    without_option,
)
from simcli.games.samurai_sword.game import RULES, Prepared, SamuraiSword, card_info, params
from simcli.games.samurai_sword.handle import (
    DISCARD_WHY,
    EVENT_WORDS,
    HONOR_WHY,
    LOG_ROWS,
    PHASE_WORDS,
    SwordHandle,
)
from simcli.games.samurai_sword.policies import (
    KEEP,
    KH,
    KSP,
    LATE_HONOR,
    POLICIES,
    SEARCH,
    SEARCH_EVIDENCE,
    SEARCH_MAX_ROLLOUT,
    SEARCH_SPREAD,
    search_knobs,
)
from simcli.games.samurai_sword.stats import END_REASONS, STAT, TEAMS, named_stats

__all__ = [
    "ABILITIES", "DISCARD_WHY", "EFFECTS", "END_REASONS", "EVENT_WORDS", "HONOR_WHY", "KEEP",
    "KH", "KSP", "LATE_HONOR", "LOG_ROWS", "MAX_P", "MIN_P", "OPTION_NAMES", "PHASE_WORDS",
    "POLICIES", "ROLES", "RULES", "SEARCH", "SEARCH_EVIDENCE", "SEARCH_MAX_ROLLOUT",
    "SEARCH_SPREAD", "STAT", "TEAMS", "Ability", "CardFile", "CharacterFile", "CharactersFile",
    "DeckFile", "Effect", "HonorFile", "MetaFile", "MultiplierFile", "Name", "Prepared",
    "RoleName", "RulesFile", "SamuraiSword", "Setup", "SetupFile", "SwordContent",
    "SwordFile", "SwordHandle", "card_info", "named_stats", "params", "parse_content",
    "search_knobs", "without_option",
]
