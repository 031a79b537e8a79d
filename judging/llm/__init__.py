"""Machine assessors: LLM relevance judges over an OpenAI-compatible chat-completions endpoint.

Pure (no Django): the campaign's machine assessors (judging.machine_judges) and the file mode of
``manage.py machine_judge`` both run on it.

* :mod:`judging.llm.endpoints`: the endpoints the server's operator declares (URL, the variable
  holding the key, whether a private address is allowed); organizers only choose among them;
* :mod:`judging.llm.config`: a judge's configuration: its endpoint and the organizer's choices;
  the API key is only ever read from the endpoint's variable, at call time;
* :mod:`judging.llm.network`: the network guard: every connection resolved, checked and made to
  the checked address, private addresses refused unless the endpoint allows them;
* :mod:`judging.llm.prompts`: versioned prompt templates (UMBRELA's by default) and the mapping
  of their answer onto a campaign's graded scale;
* :mod:`judging.llm.answers`: reading a grade out of an answer, or "can't judge" with the reason;
* :mod:`judging.llm.client`: the HTTP calls, with retries, backoff, a rate limit and a record of
  every attempt;
* :mod:`judging.llm.runner`: judging many (topic, document) items with a cache keyed by prompt
  version, model, topic and document, so a stopped or killed run resumes without judging twice;
* :mod:`judging.llm.files`: the file mode (a pool file, topics and documents in, qrels out).

docs/machine_judges.md says how each works and how to point it at a real endpoint.
"""
