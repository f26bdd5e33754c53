"""The bot's settings: ``config.yml`` read into one typed, frozen :class:`Settings` (see :mod:`bot.config.settings`).

The bottom layer of the bot: every other package may read settings, this one imports nothing from them. Beside
the settings, :class:`Timing` (:mod:`bot.config.timing`): the bot's fixed waits, which are not config keys.
"""

from bot.config.settings import (
    BUILTIN_BOOK,
    SPEED_NAMES,
    BookSelection,
    BookSettings,
    ChallengeSettings,
    ChatRoom,
    ChatSettings,
    ConfigError,
    CorrespondenceSettings,
    DialectSetting,
    DrawSettings,
    EngineLimits,
    EngineProtocol,
    EngineSettings,
    GreetingSettings,
    LoggingSettings,
    LogLevel,
    MatchmakingOverride,
    MatchmakingSettings,
    MatchmakingTimeControl,
    Mode,
    ResignSettings,
    ServerSettings,
    Settings,
    ShutdownMode,
    ShutdownSettings,
    Speed,
    StatusSettings,
    TakebackSettings,
    TimeSettings,
    TokenError,
    TournamentEntry,
    config_key,
    load_settings,
    parse_tournament_entry,
    resolve_token,
    setting,
    settings_from_dict,
    token_file_warning,
)
from bot.config.timing import PRODUCTION_TIMING, Timing

__all__ = ["BUILTIN_BOOK", "BookSelection", "BookSettings", "ChallengeSettings", "ChatRoom", "ChatSettings",
           "ConfigError",
           "CorrespondenceSettings", "DialectSetting", "DrawSettings", "EngineLimits", "EngineProtocol",
           "EngineSettings", "GreetingSettings", "LogLevel", "LoggingSettings", "MatchmakingOverride",
           "MatchmakingSettings", "MatchmakingTimeControl", "Mode", "PRODUCTION_TIMING", "ResignSettings",
           "SPEED_NAMES",
           "ServerSettings", "Settings", "ShutdownMode", "ShutdownSettings", "Speed", "StatusSettings",
           "TakebackSettings", "TimeSettings", "Timing", "TokenError", "TournamentEntry", "config_key",
           "load_settings", "parse_tournament_entry", "resolve_token", "setting", "settings_from_dict",
           "token_file_warning"]
