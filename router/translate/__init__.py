"""The agent APIs' wire formats: Anthropic Messages and OpenAI Responses, to and from chat.

Chat Completions is the pivot. A backend that speaks the client's API natively gets the body
untouched; any other backend that speaks chat gets a translated request, and its reply is
translated back, whole or event by event. Import the submodules directly: this package's
`__init__` stays empty so the pure policy can import `pairing` without httpx.
"""
