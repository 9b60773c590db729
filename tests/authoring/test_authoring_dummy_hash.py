"""The stand-in hash an unknown username's login is checked against: written out, not derived at import,
so it must keep the shape of a real stored hash (same method and scrypt parameters, so the same work per
check, and the same field lengths) and never match a password."""

from werkzeug.security import check_password_hash, generate_password_hash

from quizapp.auth import accounts


def test_dummy_hash_has_the_shape_and_cost_parameters_of_a_real_hash():
    real = generate_password_hash("a-real-password-1", method=accounts.PASSWORD_METHOD)
    dummy = accounts._DUMMY_HASH
    assert dummy.split("$")[0] == real.split("$")[0]  # e.g. scrypt:32768:8:1: the KDF's cost is the same
    assert [len(field) for field in dummy.split("$")] == [len(field) for field in real.split("$")]
    assert not check_password_hash(dummy, "a-real-password-1")
    assert not check_password_hash(dummy, "")
