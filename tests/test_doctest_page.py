"""docs/doctests.md runs under plain doctest, with no option flags, as a user's would."""

import doctest
import pathlib

PAGE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "doctests.md"


def test_the_doctests_page_passes_under_plain_doctest():
    result = doctest.testfile(
        str(PAGE), module_relative=False, optionflags=0, verbose=False, report=True
    )
    assert result.attempted > 10 and result.failed == 0, result
