"""Parallel-manipulator descriptions: a platform on legs, in TOML (:mod:`.description`)."""

from robohw.platforms.description import (DEFAULT_PLATFORM, SHIPPED_PLATFORMS, Leg, LegPart,
                                          Platform, PlatformFileError, PlatformFileWarning,
                                          load_platform)

__all__ = ["Leg", "LegPart", "Platform", "PlatformFileError", "PlatformFileWarning",
           "load_platform", "SHIPPED_PLATFORMS", "DEFAULT_PLATFORM"]
