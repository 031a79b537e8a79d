"""Admin views of campaign data, for inspection; imports go through the services (commands, pages)."""

from __future__ import annotations

from django.contrib import admin

from campaigns.models import Campaign, Document, Group, Run, Topic


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "max_docs_per_topic", "created_at")
    prepopulated_fields = {"slug": ("name",)}  # noqa: RUF012 - Django's own attribute
    search_fields = ("slug", "name")


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ("number", "title", "campaign")
    list_filter = ("campaign",)
    search_fields = ("number", "title")


@admin.register(Group)
class GroupAdmin(admin.ModelAdmin):
    list_display = ("name", "campaign")
    list_filter = ("campaign",)


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("tag", "campaign", "group", "priority", "topic_count", "document_count", "submitted_at")
    list_filter = ("campaign", "group")
    search_fields = ("tag",)
    # the ranked lines are written once, by the import, and are too many to edit here
    readonly_fields = ("topic_count", "document_count", "original_filename", "imported_at", "warnings")


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ("docno", "title", "campaign")
    list_filter = ("campaign",)
    search_fields = ("docno", "title")
