# ruff: noqa: E501
"""crowd-kit's test data (tests/conftest.py of Toloka/crowd-kit): its "simple" set, which imitates
real Toloka answers, and its boolean-label set, as (item, annotator, label) triples with their truths."""

# fmt: off
SIMPLE = [
    ('1231239876--5fac0d234ffb2f3b00893eec', 'bde3b214b06c1efa6cb1bc6284dc72d2', 'goose'),
    ('1231239876--5fac0d234ffb2f3b00893efb', 'bde3b214b06c1efa6cb1bc6284dc72d2', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893f03', 'bde3b214b06c1efa6cb1bc6284dc72d2', 'goose'),
    ('1231239876--5fac0d234ffb2f3b00893f05', 'bde3b214b06c1efa6cb1bc6284dc72d2', 'goose'),
    ('1231239876--5fac0d234ffb2f3b00893f02', 'bde3b214b06c1efa6cb1bc6284dc72d2', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893f08', 'bde3b214b06c1efa6cb1bc6284dc72d2', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893efb', 'b17c3301ad2ccbb798716fdd405d16e8', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893ee8', 'b17c3301ad2ccbb798716fdd405d16e8', 'chicken'),
    ('1231239876--5fac0d234ffb2f3b00893f07', 'b17c3301ad2ccbb798716fdd405d16e8', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893efd', 'b17c3301ad2ccbb798716fdd405d16e8', 'chicken'),
    ('1231239876--5fac0d234ffb2f3b00893ee4', 'b17c3301ad2ccbb798716fdd405d16e8', 'chicken'),
    ('1231239876--5fac0d234ffb2f3b00893f03', 'b17c3301ad2ccbb798716fdd405d16e8', 'goose'),
    ('1231239876--5fac0d234ffb2f3b00893ee8', 'a452e450f913cfa987cad58d50393718', 'chicken'),
    ('1231239876--5fac0d234ffb2f3b00893eec', 'a452e450f913cfa987cad58d50393718', 'goose'),
    ('1231239876--5fac0d234ffb2f3b00893f05', 'a452e450f913cfa987cad58d50393718', 'goose'),
    ('1231239876--5fac0d234ffb2f3b00893f02', 'a452e450f913cfa987cad58d50393718', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893f08', 'a452e450f913cfa987cad58d50393718', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893eec', '0f65edea0a6dc7b9acba1dea313bbb3d', 'goose'),
    ('1231239876--5fac0d234ffb2f3b00893ee8', '0f65edea0a6dc7b9acba1dea313bbb3d', 'chicken'),
    ('1231239876--5fac0d234ffb2f3b00893f03', '0f65edea0a6dc7b9acba1dea313bbb3d', 'goose'),
    ('1231239876--5fac0d234ffb2f3b00893ee4', '0f65edea0a6dc7b9acba1dea313bbb3d', 'chicken'),
    ('1231239876--5fac0d234ffb2f3b00893eec', '0c3eb7d5fcc414db137c4180a654c06e', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893efb', '0c3eb7d5fcc414db137c4180a654c06e', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893f07', '0c3eb7d5fcc414db137c4180a654c06e', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893efd', '0c3eb7d5fcc414db137c4180a654c06e', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893ee4', '0c3eb7d5fcc414db137c4180a654c06e', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893f05', '0c3eb7d5fcc414db137c4180a654c06e', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893efb', 'e563e2fb32fce9f00123a65a1bc78c55', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893ee8', 'e563e2fb32fce9f00123a65a1bc78c55', 'goose'),
    ('1231239876--5fac0d234ffb2f3b00893f02', 'e563e2fb32fce9f00123a65a1bc78c55', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893f08', 'e563e2fb32fce9f00123a65a1bc78c55', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893f07', 'e563e2fb32fce9f00123a65a1bc78c55', 'parrot'),
    ('1231239876--5fac0d234ffb2f3b00893efd', 'e563e2fb32fce9f00123a65a1bc78c55', 'goose'),
]
SIMPLE_TRUTH = {
    '1231239876--5fac0d234ffb2f3b00893eec': 'goose',
    '1231239876--5fac0d234ffb2f3b00893f03': 'goose',
    '1231239876--5fac0d234ffb2f3b00893f05': 'goose',
    '1231239876--5fac0d234ffb2f3b00893efb': 'parrot',
    '1231239876--5fac0d234ffb2f3b00893f02': 'parrot',
    '1231239876--5fac0d234ffb2f3b00893f08': 'parrot',
    '1231239876--5fac0d234ffb2f3b00893f07': 'parrot',
    '1231239876--5fac0d234ffb2f3b00893ee8': 'chicken',
    '1231239876--5fac0d234ffb2f3b00893efd': 'chicken',
    '1231239876--5fac0d234ffb2f3b00893ee4': 'chicken',
}
BOOLEAN = [
    ('t1', 'w1', True),
    ('t2', 'w1', True),
    ('t1', 'w2', True),
    ('t2', 'w2', True),
    ('t1', 'w3', False),
    ('t2', 'w3', False),
]
BOOLEAN_TRUTH = {'t1': True, 't2': True}



# Expected values of crowd-kit's tests/aggregation/data_wawa.py, data_zbs.py and data_mmsr.py
# (its test_fit_predict_classification_aggregations_methods): labels, skills, probabilities or scores.
EXPECTED = {
    ('wawa', 'toy'): {
        "labels": {'t1': 'no', 't2': 'yes', 't3': 'no', 't4': 'yes', 't5': 'no'},
        "skills": {'w1': 0.6, 'w2': 0.8, 'w3': 1.0, 'w4': 0.4, 'w5': 0.8},
        "table": {'t1': {'yes': 0.461538, 'no': 0.538462}, 't2': {'yes': 0.666667, 'no': 0.333333}, 't3': {'yes': 0.277778, 'no': 0.722222}, 't4': {'yes': 1.0, 'no': 0.0}, 't5': {'yes': 0.166667, 'no': 0.833333}},
    },
    ('wawa', 'simple'): {
        "labels": {'1231239876--5fac0d234ffb2f3b00893eec': 'goose', '1231239876--5fac0d234ffb2f3b00893f03': 'goose', '1231239876--5fac0d234ffb2f3b00893f05': 'goose', '1231239876--5fac0d234ffb2f3b00893efb': 'parrot', '1231239876--5fac0d234ffb2f3b00893f02': 'parrot', '1231239876--5fac0d234ffb2f3b00893f08': 'parrot', '1231239876--5fac0d234ffb2f3b00893f07': 'parrot', '1231239876--5fac0d234ffb2f3b00893ee8': 'chicken', '1231239876--5fac0d234ffb2f3b00893efd': 'chicken', '1231239876--5fac0d234ffb2f3b00893ee4': 'chicken'},
        "skills": {'0c3eb7d5fcc414db137c4180a654c06e': 0.3333333333333333, '0f65edea0a6dc7b9acba1dea313bbb3d': 1.0, 'a452e450f913cfa987cad58d50393718': 1.0, 'b17c3301ad2ccbb798716fdd405d16e8': 1.0, 'bde3b214b06c1efa6cb1bc6284dc72d2': 1.0, 'e563e2fb32fce9f00123a65a1bc78c55': 0.6666666666666666},
        "table": {'1231239876--5fac0d234ffb2f3b00893ee4': {'chicken': 0.857143, 'goose': 0.0, 'parrot': 0.142857}, '1231239876--5fac0d234ffb2f3b00893ee8': {'chicken': 0.818182, 'goose': 0.181818, 'parrot': 0.0}, '1231239876--5fac0d234ffb2f3b00893eec': {'chicken': 0.0, 'goose': 0.9, 'parrot': 0.1}, '1231239876--5fac0d234ffb2f3b00893efb': {'chicken': 0.0, 'goose': 0.0, 'parrot': 1.0}, '1231239876--5fac0d234ffb2f3b00893efd': {'chicken': 0.5, 'goose': 0.333333, 'parrot': 0.166667}, '1231239876--5fac0d234ffb2f3b00893f02': {'chicken': 0.0, 'goose': 0.0, 'parrot': 1.0}, '1231239876--5fac0d234ffb2f3b00893f03': {'chicken': 0.0, 'goose': 1.0, 'parrot': 0.0}, '1231239876--5fac0d234ffb2f3b00893f05': {'chicken': 0.0, 'goose': 0.857143, 'parrot': 0.142857}, '1231239876--5fac0d234ffb2f3b00893f07': {'chicken': 0.0, 'goose': 0.0, 'parrot': 1.0}, '1231239876--5fac0d234ffb2f3b00893f08': {'chicken': 0.0, 'goose': 0.0, 'parrot': 1.0}},
    },
    ('zbs', 'toy'): {
        "labels": {'t1': 'no', 't2': 'yes', 't3': 'no', 't4': 'yes', 't5': 'no'},
        "skills": {'w1': 0.6, 'w2': 0.8, 'w3': 1.0, 'w4': 0.4, 'w5': 0.8},
        "table": {'t1': {'no': 0.538462, 'yes': 0.461538}, 't2': {'no': 0.333333, 'yes': 0.666667}, 't3': {'no': 0.722222, 'yes': 0.277778}, 't4': {'no': 0.0, 'yes': 1.0}, 't5': {'no': 0.833333, 'yes': 0.166667}},
    },
    ('zbs', 'simple'): {
        "labels": {'1231239876--5fac0d234ffb2f3b00893eec': 'goose', '1231239876--5fac0d234ffb2f3b00893f03': 'goose', '1231239876--5fac0d234ffb2f3b00893f05': 'goose', '1231239876--5fac0d234ffb2f3b00893efb': 'parrot', '1231239876--5fac0d234ffb2f3b00893f02': 'parrot', '1231239876--5fac0d234ffb2f3b00893f08': 'parrot', '1231239876--5fac0d234ffb2f3b00893f07': 'parrot', '1231239876--5fac0d234ffb2f3b00893ee8': 'chicken', '1231239876--5fac0d234ffb2f3b00893efd': 'chicken', '1231239876--5fac0d234ffb2f3b00893ee4': 'chicken'},
        "skills": {'0c3eb7d5fcc414db137c4180a654c06e': 0.333333, '0f65edea0a6dc7b9acba1dea313bbb3d': 1.0, 'a452e450f913cfa987cad58d50393718': 1.0, 'b17c3301ad2ccbb798716fdd405d16e8': 1.0, 'bde3b214b06c1efa6cb1bc6284dc72d2': 1.0, 'e563e2fb32fce9f00123a65a1bc78c55': 0.666667},
        "table": {'1231239876--5fac0d234ffb2f3b00893ee4': {'chicken': 0.857143, 'goose': 0.0, 'parrot': 0.142857}, '1231239876--5fac0d234ffb2f3b00893ee8': {'chicken': 0.818182, 'goose': 0.181818, 'parrot': 0.0}, '1231239876--5fac0d234ffb2f3b00893eec': {'chicken': 0.0, 'goose': 0.9, 'parrot': 0.1}, '1231239876--5fac0d234ffb2f3b00893efb': {'chicken': 0.0, 'goose': 0.0, 'parrot': 1.0}, '1231239876--5fac0d234ffb2f3b00893efd': {'chicken': 0.5, 'goose': 0.333333, 'parrot': 0.166667}, '1231239876--5fac0d234ffb2f3b00893f02': {'chicken': 0.0, 'goose': 0.0, 'parrot': 1.0}, '1231239876--5fac0d234ffb2f3b00893f03': {'chicken': 0.0, 'goose': 1.0, 'parrot': 0.0}, '1231239876--5fac0d234ffb2f3b00893f05': {'chicken': 0.0, 'goose': 0.857143, 'parrot': 0.142857}, '1231239876--5fac0d234ffb2f3b00893f07': {'chicken': 0.0, 'goose': 0.0, 'parrot': 1.0}, '1231239876--5fac0d234ffb2f3b00893f08': {'chicken': 0.0, 'goose': 0.0, 'parrot': 1.0}},
    },
    ('mmsr', 'toy'): {
        "labels": {'t1': 'yes', 't2': 'no', 't3': 'no', 't4': 'yes', 't5': 'no'},
        "skills": {'w1': -0.9486439852160969, 'w2': 0.9764628672747041, 'w3': 1.2428113335479982, 'w4': 0.948643985216097, 'w5': 0.9764628672747041},
        "table": {'t1': {'no': 0.014244720916141606, 'yes': 0.9857552790838584}, 't2': {'no': 0.6023983861841676, 'yes': 0.3976016138158324}, 't3': {'no': 1.0, 'yes': 3.474074997309249e-17}, 't4': {'no': 0.0, 'yes': 1.0}, 't5': {'no': 1.2968466945188564, 'yes': -0.2968466945188564}},
    },
    ('mmsr', 'simple'): {
        "labels": {'1231239876--5fac0d234ffb2f3b00893eec': 'goose', '1231239876--5fac0d234ffb2f3b00893f03': 'goose', '1231239876--5fac0d234ffb2f3b00893f05': 'goose', '1231239876--5fac0d234ffb2f3b00893efb': 'parrot', '1231239876--5fac0d234ffb2f3b00893f02': 'parrot', '1231239876--5fac0d234ffb2f3b00893f08': 'parrot', '1231239876--5fac0d234ffb2f3b00893f07': 'parrot', '1231239876--5fac0d234ffb2f3b00893ee8': 'chicken', '1231239876--5fac0d234ffb2f3b00893efd': 'chicken', '1231239876--5fac0d234ffb2f3b00893ee4': 'chicken'},
        "skills": {'0c3eb7d5fcc414db137c4180a654c06e': -0.6268515139467665, '0f65edea0a6dc7b9acba1dea313bbb3d': 2.0131458750666567, 'a452e450f913cfa987cad58d50393718': 2.0131458750666567, 'b17c3301ad2ccbb798716fdd405d16e8': 2.0131458750666567, 'bde3b214b06c1efa6cb1bc6284dc72d2': 2.0131458750666567, 'e563e2fb32fce9f00123a65a1bc78c55': 1.8527467194291514},
        "table": {'1231239876--5fac0d234ffb2f3b00893ee4': {'chicken': 1.1843984510373275, 'goose': 0.0, 'parrot': -0.18439845103732766}, '1231239876--5fac0d234ffb2f3b00893ee8': {'chicken': 0.7652428480475112, 'goose': 0.23475715195248875, 'parrot': 0.0}, '1231239876--5fac0d234ffb2f3b00893eec': {'chicken': 0.0, 'goose': 1.1158136796463138, 'parrot': -0.11581367964631392}, '1231239876--5fac0d234ffb2f3b00893efb': {'chicken': 0.0, 'goose': 0.0, 'parrot': 1.0}, '1231239876--5fac0d234ffb2f3b00893efd': {'chicken': 0.6215252678195158, 'goose': 0.5720046993399346, 'parrot': -0.19352996715945034}, '1231239876--5fac0d234ffb2f3b00893f02': {'chicken': 0.0, 'goose': 0.0, 'parrot': 1.0}, '1231239876--5fac0d234ffb2f3b00893f03': {'chicken': 0.0, 'goose': 1.0, 'parrot': 0.0}, '1231239876--5fac0d234ffb2f3b00893f05': {'chicken': 0.0, 'goose': 1.1843984510373275, 'parrot': -0.18439845103732766}, '1231239876--5fac0d234ffb2f3b00893f07': {'chicken': 0.0, 'goose': 0.0, 'parrot': 1.0}, '1231239876--5fac0d234ffb2f3b00893f08': {'chicken': 0.0, 'goose': 0.0, 'parrot': 1.0}},
    },
}
# fmt: on
