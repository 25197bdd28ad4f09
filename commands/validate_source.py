"""The device-code splitter ``validate`` uses lives in :mod:`cudalint.analyzer.device_source`
(the register report compiles the same device code); this name stays for existing imports."""
import sys

from ..analyzer import device_source as _device_source

sys.modules[__name__] = _device_source
