"""``GET /api/jobs/<id>/``: a job's status, progress and, once done, its result."""

from __future__ import annotations

import uuid

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import job_for
from jobs.selectors import job_status


class JobDetailApi(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT}, operation_id="job_detail")
    def get(self, request: Request, job_id: uuid.UUID) -> Response:
        job = job_for(request.user, job_id)
        if job is None:
            raise exceptions.NotFound("no such job")
        return Response(job_status(job=job) | {"result": job.result})
