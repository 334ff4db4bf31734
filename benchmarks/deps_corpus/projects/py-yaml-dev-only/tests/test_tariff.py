from pathlib import Path

import yaml

from calc.tariff import monthly

CASES = yaml.load((Path(__file__).parent / "cases.yaml").read_text(), Loader=yaml.FullLoader)


def test_cases() -> None:
    for case in CASES:
        assert monthly(case["base"], case["usage"], case["rate"]) == case["expected"]
