import pytest

from checkers import reference
from checkers.reference.registry import Param, register


def test_unknown_function_names_itself():
    with pytest.raises(reference.UnknownFunction) as err:
        reference.call("no.such_function")
    assert "no.such_function" in str(err.value)
