"""Organizer tools of issue 10: people (invite without revealing accounts, roles, passwords,
deactivation), reassigning or releasing an assignment, and the adaptive queue's dead end."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaigns.access import has_role
from campaigns.accounts.models import Invitation
from campaigns.models import Campaign, Topic
from campaigns.services import campaign_create, member_invite, membership_add
from judging.models import Assignment, Judgment
from judging.services import assignment_next_item, assignments_create, judgment_record
from pooling.models import Pool
from pooling.services import pool_build, pool_commit
from pooling.spec import PoolSpec
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(organizer: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(organizer)
    return client


@pytest.fixture
def web(organizer: Any) -> Client:
    client = Client()
    assert client.login(username=organizer.username, password=PASSWORD)
    return client


@pytest.fixture
def pool(loaded: Campaign) -> Pool:
    return pool_commit(pool=pool_build(campaign=loaded, name="d5", spec=PoolSpec("depth", depth=5)))


@pytest.fixture
def adaptive(loaded: Campaign) -> Pool:
    spec = PoolSpec("mtf", depth=10, seed=5)
    return pool_commit(pool=pool_build(campaign=loaded, name="adaptive", spec=spec))


def invite(api: APIClient, campaign: Campaign, **data: Any) -> Any:
    return api.post(f"/api/judging/campaigns/{campaign.slug}/people/invite/", data, format="json")


# ------------------------------------------------------------------------------------ inviting


@pytest.fixture
def invited(campaign: Campaign, organizer: Any) -> Any:
    """An assessor whose account this campaign's invitation created (its origin), password PASSWORD."""
    user, _ = member_invite(campaign=campaign, username="ivan", roles=["assessor"], by=organizer)
    user.set_password(PASSWORD)
    user.save()
    return user


def test_a_new_account_is_never_an_existing_one_and_the_status_tells_nothing(
    api: APIClient, campaign: Campaign
) -> None:
    other = campaign_create(slug="elsewhere", name="Elsewhere")
    victim = User.objects.create_user("victim", password="secret-of-victim")
    membership_add(campaign=other, user=victim, roles=["organizer"])
    created = invite(api, campaign, username="newbie", roles=["assessor"])
    assert created.status_code == 201 and User.objects.get(username="newbie").check_password(
        created.data["password"]
    )
    # a taken username asked for as a new account: refused, and the account is not attached
    taken = invite(api, campaign, username="victim", roles=["organizer"])
    assert taken.status_code == 400 and "cannot be used for a new account" in taken.data["errors"][0]
    assert not has_role(victim, campaign, "organizer") and victim.memberships.count() == 1
    # asked for as an existing account: only an invitation (202), no role until its owner accepts
    attached = invite(api, campaign, username="victim", roles=["assessor"], account="existing")
    assert attached.status_code == 202 and "password" not in attached.data
    victim = User.objects.get(pk=victim.pk)  # has_role caches the roles on the object
    assert not has_role(victim, campaign, "assessor") and victim.check_password("secret-of-victim")
    # the same answer, key for key, whether the account exists, differs in case, is inactive or is none
    User.objects.filter(username="newbie").update(is_active=False)
    answers = [
        invite(api, campaign, username=name, roles=["assessor"], account="existing")
        for name in ("VICTIM", "newbie", "nobody-at-all")
    ]
    for answer in [attached, *answers]:
        assert answer.status_code == 202
        assert set(answer.data) == {"id", "username", "roles", "status", "created"}
        assert answer.data["status"] == "pending" and answer.data["roles"] == ["assessor"]
    # only the active account of exactly that name can ever answer
    assert Invitation.objects.get(username="victim").user == victim
    assert not Invitation.objects.exclude(username="victim").exclude(user=None).exists()


def test_the_people_page_invites_an_existing_account_only_when_asked(
    web: Client, campaign: Campaign, outsider: Any
) -> None:
    url = reverse("judging:people", args=[campaign.slug])
    page = web.post(url, {"username": "oscar", "roles": ["assessor"]}, follow=True).content.decode()
    assert "cannot be used for a new account" in page and not has_role(outsider, campaign, "assessor")
    data = {"username": "oscar", "roles": ["assessor"], "account": "existing"}
    page = web.post(url, data, follow=True).content.decode()
    fresh = User.objects.get(pk=outsider.pk)  # has_role caches the roles on the object
    assert "is invited as assessor" in page and not has_role(fresh, campaign, "assessor")
    assert 'id="invitation-oscar"' in page
    # the message is the same sentence for a username nobody has
    none = web.post(url, {**data, "username": "nobody"}, follow=True).content.decode()
    said = [
        body.split('class="success">')[1].split("</li>")[0].replace(name, "NAME")
        for body, name in ((page, "oscar"), (none, "nobody"))
    ]
    assert said[0] == said[1] and "NAME" in said[0]


def test_the_organizer_withdraws_a_pending_invitation(
    web: Client, api: APIClient, campaign: Campaign, outsider: Any
) -> None:
    first = invite(api, campaign, username="oscar", roles=["assessor"], account="existing").data
    listed = api.get(f"/api/judging/campaigns/{campaign.slug}/invitations/").json()
    assert [i["id"] for i in listed] == [first["id"]]
    url = reverse("judging:invitation_withdraw", args=[campaign.slug, first["id"]])
    page = web.post(url, follow=True).content.decode()
    assert "is withdrawn" in page and 'id="invitation-oscar"' not in page
    assert not Invitation.objects.exists()
    assert web.post(url).status_code == 404  # gone
    again = invite(api, campaign, username="oscar", roles=["adjudicator"], account="existing").data
    gone = api.post(f"/api/judging/campaigns/{campaign.slug}/invitations/{again['id']}/withdraw/")
    assert gone.status_code == 204 and not Invitation.objects.exists()
    assert (
        api.post(f"/api/judging/campaigns/{campaign.slug}/invitations/{again['id']}/withdraw/").status_code
        == 404
    )


# ------------------------------------------------------------------------------ roles, accounts


def test_removing_a_role_keeps_the_last_organizer(
    web: Client, api: APIClient, campaign: Campaign, organizer: Any, assessor: Any
) -> None:
    url = reverse("judging:member_role_remove", args=[campaign.slug, assessor.pk])
    page = web.post(url, {"role": "assessor"}, follow=True).content.decode()
    assert "no longer assessor" in page and not has_role(assessor, campaign, "assessor")
    last = api.post(
        f"/api/judging/campaigns/{campaign.slug}/people/{organizer.pk}/remove-role/", {"role": "organizer"}
    )
    assert last.status_code == 400 and "last organizer" in last.data["errors"][0]
    assert has_role(organizer, campaign, "organizer")


def test_a_reset_password_is_shown_once_with_a_copy_button(
    web: Client, campaign: Campaign, invited: Any
) -> None:
    url = reverse("judging:member_password_reset", args=[campaign.slug, invited.pk])
    page = web.post(url, follow=True).content.decode()
    password = page.split('<code id="revealed-password" class="secret">')[1].split("</code>")[0]
    invited.refresh_from_db()
    assert invited.check_password(password) and not invited.check_password(PASSWORD)
    assert 'id="copy-password"' in page
    again = web.get(reverse("judging:people", args=[campaign.slug])).content.decode()
    assert password not in again and "revealed-password" not in again


def test_accounts_used_elsewhere_or_ones_own_cannot_be_reset_or_deactivated(
    api: APIClient, campaign: Campaign, organizer: Any, invited: Any
) -> None:
    base = f"/api/judging/campaigns/{campaign.slug}/people"
    membership_add(campaign=campaign_create(slug="other", name="Other"), user=invited, roles=["assessor"])
    refused = api.post(f"{base}/{invited.pk}/password/")
    assert refused.status_code == 400 and "used in another campaign" in refused.data["errors"][0]
    assert api.post(f"{base}/{invited.pk}/active/", {"active": False}).status_code == 400
    assert api.post(f"{base}/{organizer.pk}/password/").status_code == 400
    staff = User.objects.create_user("root", password="x", is_staff=True)
    membership_add(campaign=campaign, user=staff, roles=["assessor"])
    assert api.post(f"{base}/{staff.pk}/password/").status_code == 400
    invited.refresh_from_db()
    assert invited.check_password(PASSWORD) and invited.is_active
    # an account outside the campaign is not found, whatever exists
    stranger = User.objects.create_user("stranger", password="x")
    assert api.post(f"{base}/{stranger.pk}/password/").status_code == 404
    assert api.post(f"{base}/999999/password/").status_code == 404


def test_the_people_page_says_who_manages_each_account(
    web: Client, campaign: Campaign, assessor: Any, invited: Any
) -> None:
    page = web.get(reverse("judging:people", args=[campaign.slug])).content.decode()
    mine = page.split('id="member-ivan"')[1].split("</tr>")[0]
    theirs = page.split('id="member-alice"')[1].split("</tr>")[0]
    own = page.split('id="member-olga"')[1].split("</tr>")[0]
    assert "Reset password" in mine and "Deactivate" in mine
    # alice's account was made outside the campaign (no recorded origin): a site administrator's
    assert "Reset password" not in theirs and "a site administrator manages it" in theirs
    assert "Reset password" not in own and "My account" in own


def test_a_deactivated_assessor_cannot_log_in_until_reactivated(
    web: Client, campaign: Campaign, invited: Any
) -> None:
    url = reverse("judging:member_active", args=[campaign.slug, invited.pk])
    page = web.post(url, {"active": "false"}, follow=True).content.decode()
    assert "is deactivated" in page and "deactivated</span>" in page
    assert not Client().login(username="ivan", password=PASSWORD)
    web.post(url, {"active": "true"})
    assert Client().login(username="ivan", password=PASSWORD)


# ---------------------------------------------------------------------------- reassign, release


def test_reassigning_moves_the_unjudged_documents_and_keeps_the_judged(
    web: Client, loaded: Campaign, pool: Pool, assessor: Any, co_assessor: Any
) -> None:
    topic = Topic.objects.get(campaign=loaded, number="401")
    (mine,) = assignments_create(
        campaign=loaded, pool=pool, assessors=[assessor], topics=[topic], order="docno"
    )
    docnos = list(mine.items.order_by("position").values_list("docno", flat=True))
    for d in docnos[:2]:
        judgment_record(assessor=assessor, assignment=mine, docno=d, grade=1)
    url = reverse("judging:assignment_reassign", args=[loaded.slug, mine.pk])
    page = web.post(url, {"assessor": "bob"}, follow=True).content.decode()
    assert "is now bob" in page
    assert list(mine.items.order_by("position").values_list("docno", flat=True)) == docnos[:2]
    theirs = Assignment.objects.get(pool=pool, topic=topic, assessor=co_assessor)
    assert list(theirs.items.order_by("position").values_list("docno", flat=True)) == docnos[2:]
    assert Judgment.objects.filter(assessor=assessor).count() == 2
    refused = web.post(url, {"assessor": "bob"}, follow=True).content.decode()
    assert "nothing to reassign" in refused


def test_an_assignment_is_never_moved_to_someone_who_is_not_an_assessor(
    loaded: Campaign, pool: Pool, assessor: Any, adjudicator: Any, outsider: Any
) -> None:
    from judging.errors import JudgingRefused
    from judging.services import assignment_reassign

    topic = Topic.objects.get(campaign=loaded, number="401")
    (mine,) = assignments_create(
        campaign=loaded, pool=pool, assessors=[assessor], topics=[topic], order="docno"
    )
    docnos = list(mine.items.order_by("position").values_list("docno", flat=True))
    for person in (adjudicator, outsider):  # a member without the role, and a non-member
        with pytest.raises(JudgingRefused, match="is not an assessor of this campaign"):
            assignment_reassign(campaign=loaded, assignment=mine, assessor=person)
        assert not Assignment.objects.filter(assessor=person).exists()
    assert list(mine.items.order_by("position").values_list("docno", flat=True)) == docnos


def test_releasing_an_assignment_keeps_its_judgments(
    api: APIClient, loaded: Campaign, pool: Pool, assessor: Any
) -> None:
    topic = Topic.objects.get(campaign=loaded, number="401")
    (mine,) = assignments_create(campaign=loaded, pool=pool, assessors=[assessor], topics=[topic])
    judgment_record(assessor=assessor, assignment=mine, docno=mine.items.first().docno, grade=2)  # type: ignore[union-attr]
    response = api.post(f"/api/judging/campaigns/{loaded.slug}/assignments/{mine.pk}/delete/")
    assert response.status_code == 204 and not Assignment.objects.exists()
    assert Judgment.objects.filter(assessor=assessor, grade=2).count() == 1


def test_a_queue_topic_judged_elsewhere_is_no_dead_end_and_can_be_reassigned(
    api: APIClient, loaded: Campaign, pool: Pool, adaptive: Pool, assessor: Any, co_assessor: Any
) -> None:
    topic = Topic.objects.get(campaign=loaded, number="401")
    (static,) = assignments_create(
        campaign=loaded, pool=pool, assessors=[assessor], topics=[topic], order="docno"
    )
    for d in static.items.values_list("docno", flat=True):  # alice judges the topic's top documents first
        judgment_record(assessor=assessor, assignment=static, docno=d, grade=0)
    (queue,) = assignments_create(
        campaign=loaded, pool=adaptive, assessors=[assessor], topics=[topic], order="queue", budget=5
    )
    # the budget counts this assignment's judgments: she has a document she has not judged yet
    dealt = assignment_next_item(assignment=queue)
    assert dealt is not None
    assert not Judgment.objects.filter(assessor=assessor, topic=topic, docno=dealt.docno).exists()
    # and the topic can be handed to someone else: the pending document goes along
    base = f"/api/judging/campaigns/{loaded.slug}/assignments"
    moved = api.post(f"{base}/{queue.pk}/reassign/", {"assessor": "bob"}, format="json")
    assert moved.status_code == 200, moved.data
    assert moved.data["assessor"] == "bob" and moved.data["documents"] - moved.data["judged"] == 1
    theirs = Assignment.objects.get(pool=adaptive, topic=topic, assessor=co_assessor)
    assert assignment_next_item(assignment=theirs) is not None
    # the earlier assignment keeps what alice judged there and the queue no longer deals to it
    assert assignment_next_item(assignment=queue) is None
    # released, the topic can be assigned again
    assert api.post(f"{base}/{theirs.pk}/delete/").status_code == 204
    assert api.post(f"{base}/{queue.pk}/delete/").status_code == 204
    again = assignments_create(
        campaign=loaded, pool=adaptive, assessors=[co_assessor], topics=[topic], order="queue"
    )
    assert again and again[0].items.exists()
