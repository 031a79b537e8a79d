"""Stored pools: the documents chosen for judging, per topic, in judging order, with their design.

Writes go through ``pooling.services``; one docno per topic of a pool and one name per campaign
are database constraints.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from campaigns.models import ByteOrderCharField, Campaign, Topic
from campaigns.validation import DOCNO_MAX_LENGTH


class Pool(models.Model):
    """A stored pool: a draft to inspect (sizes per topic) until the organizer commits it.

    ``spec`` is the :class:`pooling.spec.PoolSpec` it was built with and ``runs`` the tags pooled,
    so the pool can be explained and rebuilt. Adaptive strategies store their candidates (the
    depth-k union) as the pool's documents and the live queue in ``queue_state``, which
    ``queue_version`` counts so a process can tell whether its cached queue is current.
    """

    class Status(models.TextChoices):
        DRAFT = "draft"
        COMMITTED = "committed"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="pools")
    name = models.CharField(max_length=100)
    strategy = models.CharField(max_length=20)
    spec = models.JSONField(default=dict)
    runs = models.JSONField(default=list)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    # per topic number: documents to judge (sampled), and for sampling designs the universe size
    sizes = models.JSONField(default=dict)
    document_count = models.PositiveIntegerField(default=0)
    queue_state = models.JSONField(null=True, blank=True)
    queue_version = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    committed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("campaign_id", "-created_at")
        constraints = (models.UniqueConstraint(fields=["campaign", "name"], name="pooling_pool_unique_name"),)

    def __str__(self) -> str:
        return f"{self.name} ({self.strategy}, {self.status})"

    @property
    def adaptive(self) -> bool:
        return self.queue_state is not None

    @property
    def parameters(self) -> str:
        """The parameters it was built with besides the strategy, ``depth=10, order=docno`` (""
        when every one is at its default)."""
        return ", ".join(f"{k}={v}" for k, v in self.spec.items() if k != "strategy")


class PoolDocument(models.Model):
    """One pooled document of a topic, at its place in the judging order.

    ``sampled`` is False for documents of a sampled stratum that were not drawn: never judged,
    but listed in a sample_eval prel. ``stratum`` and ``iprob`` (inclusion probability n_s/N_s)
    carry the sampling design to xinfAP, xinfNDCG and statAP.
    """

    pk = models.CompositePrimaryKey("pool", "topic", "position")
    pool = models.ForeignKey(Pool, on_delete=models.CASCADE, related_name="documents")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveIntegerField()
    docno = ByteOrderCharField(max_length=DOCNO_MAX_LENGTH)
    sampled = models.BooleanField(default=True)
    stratum = models.CharField(max_length=20, default="1")
    iprob = models.FloatField(default=1.0)

    class Meta:
        constraints = (
            models.UniqueConstraint(
                fields=["pool", "topic", "docno"], name="pooling_pooldocument_unique_docno"
            ),
        )

    def __str__(self) -> str:
        return f"{self.docno} #{self.position}"
