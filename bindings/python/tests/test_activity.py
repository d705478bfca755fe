# SPDX-License-Identifier: MIT OR Apache-2.0
"""UserActivity: properties, userInfo rules, the payload, and its life."""

import datetime
import gc
import weakref

import pytest

from handoff import HandoffError, Status, UserActivity

TYPE = "com.example.myapp.create-shape"
UTC = datetime.timezone.utc


@pytest.fixture
def activity():
    with UserActivity(TYPE) as a:
        yield a


def test_a_new_activity(activity):
    assert activity.activity_type == TYPE
    assert len(activity.activity_id) == 36 and activity.activity_id == activity.activity_id.upper()
    assert UserActivity(TYPE).activity_id != activity.activity_id
    assert activity.title is None and activity.webpage_url is None
    assert activity.is_eligible_for_handoff and not activity.needs_save
    assert not activity.is_eligible_for_search and not activity.supports_continuation_streams
    assert activity.user_info == {} and activity.keywords == frozenset()
    assert activity.expiration_date is None and not activity.is_invalidated
    assert TYPE in repr(activity)


def test_the_type_is_what_apps_declare():
    # Intent class names and short names are types, as in NSUserActivityTypes.
    for good in ("INSendMessageIntent", "ReadArticle", "com.example.shape!"):
        assert UserActivity(good).activity_type == good
    for bad in ("", "tab\there", "a" * 300 + ".b"):
        with pytest.raises(HandoffError) as caught:
            UserActivity(bad)
        assert caught.value.code == Status.INVALID_VALUE, bad
    with pytest.raises(TypeError, match="activity_type must be a str"):
        UserActivity(b"com.example.x")


def test_string_properties(activity):
    activity.title = "Creating a circle"
    activity.webpage_url = "https://example.com/shapes/new"
    activity.referrer_url = "http://example.com/"
    activity.target_content_identifier = "shape-1"
    activity.persistent_identifier = "p-1"
    assert (activity.title, activity.webpage_url, activity.referrer_url) == (
        "Creating a circle", "https://example.com/shapes/new", "http://example.com/")
    assert activity.target_content_identifier == "shape-1" and activity.persistent_identifier == "p-1"
    activity.title = None
    assert activity.title is None


def test_web_urls_must_be_http(activity):
    with pytest.raises(HandoffError) as caught:
        activity.webpage_url = "file:///etc/passwd"
    assert caught.value.code == Status.INVALID_VALUE and caught.value.message
    assert activity.webpage_url is None  # nothing changed


def test_flags(activity):
    activity.needs_save = True
    activity.is_eligible_for_handoff = False
    activity.supports_continuation_streams = True
    assert activity.needs_save and not activity.is_eligible_for_handoff
    assert activity.supports_continuation_streams
    with pytest.raises(TypeError, match="a flag is a bool"):
        activity.needs_save = 1


def test_string_sets(activity):
    activity.keywords = ["shape", "circle", "shape"]
    assert activity.keywords == {"shape", "circle"}
    activity.required_user_info_keys = {"shape-type"}
    assert activity.required_user_info_keys == frozenset({"shape-type"})
    activity.searchable_user_info_keys = ["body", "tags", "body"]
    assert activity.searchable_user_info_keys == frozenset({"body", "tags"})
    activity.keywords = []
    assert activity.keywords == frozenset()
    with pytest.raises(TypeError, match="not a single str"):
        activity.keywords = "shape"
    with pytest.raises(TypeError):
        activity.keywords = [1]


def test_expiration_date(activity):
    when = datetime.datetime(2031, 5, 6, 7, 8, 9, tzinfo=UTC)
    activity.expiration_date = when
    assert activity.expiration_date == when
    activity.expiration_date = None
    assert activity.expiration_date is None
    with pytest.raises(ValueError, match="naive"):
        activity.expiration_date = datetime.datetime(2031, 1, 1)
    with pytest.raises(TypeError):
        activity.expiration_date = 1234.0


def test_user_info_replace_and_merge(activity):
    activity.user_info = {"shape-type": "circle", "activity-version": 1}
    activity.add_user_info_entries({"activity-version": 2, "color": "red"})
    assert activity.user_info == {"shape-type": "circle", "activity-version": 2, "color": "red"}
    copy = activity.user_info
    copy["shape-type"] = "square"  # a copy: changes nothing
    assert activity.user_info["shape-type"] == "circle"
    activity.user_info = None
    assert activity.user_info == {}


def test_user_info_size_and_budget(activity):
    activity.user_info = {"blob": b"x" * 100}
    small = activity.user_info_size
    assert 100 < small < 200
    activity.user_info = {"blob": b"x" * 4000}
    assert activity.user_info_size > 3072
    with pytest.raises(HandoffError) as caught:
        activity.encode()
    assert caught.value.code == 4611 and caught.value.is_user_activity_error


def test_payload_round_trip(activity):
    activity.title = "Creating a circle"
    activity.webpage_url = "https://example.com/s"
    activity.keywords = {"shape"}
    activity.user_info = {"shape-type": "circle", "activity-version": 1}
    activity.required_user_info_keys = {"shape-type"}
    activity.searchable_user_info_keys = {"shape-type"}
    received = UserActivity.decode(activity.encode())
    assert received is not activity
    assert received.activity_id == activity.activity_id
    assert received.activity_type == TYPE and received.title == "Creating a circle"
    assert received.webpage_url == "https://example.com/s"
    assert received.user_info == {"shape-type": "circle", "activity-version": 1}
    assert received.required_user_info_keys == {"shape-type"}
    assert received.searchable_user_info_keys == {"shape-type"}


def test_a_missing_required_key_is_not_handed_off(activity):
    activity.user_info = {"activity-version": 1}
    activity.required_user_info_keys = {"shape-type"}
    with pytest.raises(HandoffError) as caught:
        activity.encode()
    assert caught.value.code == Status.MISSING_REQUIRED_KEY
    assert "shape-type" in caught.value.message


def test_hostile_payloads():
    for data in (b"", b"garbage", b"bplist00\x00"):
        with pytest.raises(HandoffError) as caught:
            UserActivity.decode(data)
        assert caught.value.code == Status.MALFORMED_DATA
    with pytest.raises(TypeError):
        UserActivity.decode("text")


def test_invalidate(activity):
    activity.invalidate()
    activity.invalidate()  # harmless
    assert activity.is_invalidated


def test_close_and_context_manager():
    with UserActivity(TYPE) as a:
        assert not a.closed
    assert a.closed
    a.close()  # twice is harmless
    with pytest.raises(ValueError, match="UserActivity is closed"):
        a.title
    assert repr(a) == "<UserActivity (closed)>"


def test_collected_when_unreferenced():
    a = UserActivity(TYPE)
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None
