"""Validated input of the judging organizer pages and API (shared, like pooling.inputs)."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from rest_framework import serializers

from campaigns.inputs import DB_INTEGER_MAX, FormInput
from campaigns.models import Membership, Topic
from campaigns.services.members import MAX_NEW_ACCOUNTS
from judging.models import Assignment
from pooling.models import Pool


class AssignmentsCreateInput(FormInput):
    pool = serializers.IntegerField()
    assessors = serializers.ListField(child=serializers.CharField(max_length=150), allow_empty=False)
    topics = serializers.ListField(child=serializers.CharField(max_length=100), required=False)
    overlap = serializers.ChoiceField(choices=["k", "sample"], default="k")
    k = serializers.IntegerField(default=1, min_value=1)
    sample_percent = serializers.FloatField(default=10.0, min_value=0.0, max_value=100.0)
    min_pair = serializers.IntegerField(default=0, min_value=0)
    order = serializers.ChoiceField(choices=Assignment.Order.values, default=Assignment.Order.RANDOM)
    seed = serializers.IntegerField(default=0, min_value=0, max_value=DB_INTEGER_MAX)
    budget = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=DB_INTEGER_MAX)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Names and ids become the campaign's objects: ``service_arguments`` for assignments_create."""
        campaign = self.context["campaign"]
        pool = Pool.objects.filter(campaign=campaign, pk=attrs["pool"]).first()
        if pool is None:
            raise serializers.ValidationError({"pool": "no such pool in this campaign"})
        names = list(dict.fromkeys(attrs["assessors"]))
        users = {u.username: u for u in User.objects.filter(username__in=names)}
        unknown = [n for n in names if n not in users]
        if unknown:
            raise serializers.ValidationError({"assessors": f"unknown user(s): {', '.join(unknown)}"})
        numbers = [t for t in attrs.get("topics", []) if t.strip()]
        topics = None
        if numbers:
            found = {t.number: t for t in Topic.objects.filter(campaign=campaign, number__in=numbers)}
            missing = [n for n in numbers if n not in found]
            if missing:
                raise serializers.ValidationError({"topics": f"unknown topic(s): {', '.join(missing)}"})
            topics = [found[n] for n in numbers]
        sample = attrs["overlap"] == "sample"
        attrs["service_arguments"] = {
            "pool": pool,
            "assessors": [users[n] for n in names],
            "topics": topics,
            "k": None if sample else attrs["k"],
            "sample": attrs["sample_percent"] / 100 if sample else None,
            "min_pair": attrs["min_pair"],
            "order": attrs["order"],
            "seed": attrs["seed"],
            "budget": attrs.get("budget"),
        }
        return attrs


class MemberInviteInput(FormInput):
    username = serializers.CharField(max_length=150)
    email = serializers.EmailField(required=False, allow_blank=True)
    roles = serializers.ListField(
        child=serializers.ChoiceField(choices=Membership.Role.values), allow_empty=False
    )
    account = serializers.ChoiceField(
        choices=["new", "existing"],
        default="new",
        help_text="new: create the account (a taken username is refused); existing: invite the account "
        "of exactly this username, which takes the roles only when its owner accepts",
    )
    login = serializers.ChoiceField(
        choices=["password", "link", "both"],
        default="password",
        help_text="how a new account logs in: a generated password, a one-time login link (no password "
        "until its owner chooses one), or both; each given once",
    )


class NewAccountInput(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    # absent means none; a default "" would be no valid e-mail in the OpenAPI schema
    email = serializers.EmailField(required=False, allow_blank=True)


class MembersCreateInput(FormInput):
    """Many new accounts at once, each with a one-time login link: ``accounts`` (the API), or ``lines``
    (the People page's box: one account a line, its username, then optionally its e-mail address)."""

    accounts = serializers.ListField(child=NewAccountInput(), required=False, max_length=MAX_NEW_ACCOUNTS)
    lines = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="instead of accounts: one account a line, its username, then optionally its e-mail "
        "address (after a space, a comma or a semicolon)",
    )
    roles = serializers.ListField(
        child=serializers.ChoiceField(choices=Membership.Role.values), allow_empty=False
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """``accounts`` becomes (username, e-mail) pairs, from either field."""
        if attrs.get("accounts"):
            pairs = [(a["username"], a.get("email", "")) for a in attrs["accounts"]]
        else:
            pairs = _account_lines(attrs.get("lines", ""))
        if not pairs:
            raise serializers.ValidationError("give at least one username, one a line")
        if len(pairs) > MAX_NEW_ACCOUNTS:
            raise serializers.ValidationError(
                f"at most {MAX_NEW_ACCOUNTS} new accounts at once, not {len(pairs)}: add them in parts"
            )
        attrs["accounts"] = pairs
        return attrs


def _account_lines(text: str) -> list[tuple[str, str]]:
    """(username, e-mail) of each line of ``text``; every malformed line refused by its number (the
    numbers are the box's: a blank line between accounts is refused rather than skipped)."""
    pairs: list[tuple[str, str]] = []
    problems: list[str] = []
    for number, line in enumerate(text.strip().splitlines(), 1):
        words = [w for w in re.split(r"[\s,;]+", line.strip()) if w]
        if not words:
            problems.append(f"line {number} is empty: one account a line")
            continue
        if len(words) > 2:
            problems.append(
                f"line {number}: a username, then optionally an e-mail address, not {len(words)} words"
            )
            continue
        email = words[1] if len(words) == 2 else ""
        if email:
            try:
                validate_email(email)
            except DjangoValidationError:
                problems.append(f"line {number}: '{email}' is not an e-mail address")
        pairs.append((words[0], email))
    if problems:
        raise serializers.ValidationError(problems)
    return pairs


class MemberRoleInput(FormInput):
    role = serializers.ChoiceField(choices=Membership.Role.values)


class MemberActiveInput(FormInput):
    active = serializers.BooleanField()


class AssignmentReassignInput(FormInput):
    assessor = serializers.CharField(max_length=150, help_text="the username taking the unjudged documents")

    def validate_assessor(self, value: str) -> User:
        user = User.objects.filter(username=value, memberships__campaign=self.context["campaign"]).first()
        if user is None:
            raise serializers.ValidationError(f"'{value}' is not a member of this campaign")
        return user


class ScaleLevelInput(serializers.Serializer):
    value = serializers.IntegerField(min_value=0, max_value=DB_INTEGER_MAX)
    # DRF's metaclass takes declared fields off the class, so "label" does not shadow Field.label
    label = serializers.CharField(max_length=60)  # type: ignore[assignment]
    description = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")
    key = serializers.CharField(max_length=1, min_length=1)


class ScaleInput(serializers.Serializer):
    levels = ScaleLevelInput(many=True, allow_empty=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        levels = attrs["levels"]
        attrs["service_arguments"] = {
            "levels": [(lv["value"], lv["label"], lv.get("description", "")) for lv in levels],
            "keys": [lv["key"] for lv in levels],
        }
        return attrs
