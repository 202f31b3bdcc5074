"""LiteLLM's Router as an agent service would run it, for the bad day's LiteLLM row.

Started by `bad-day --litellm PYTHON` (a Python with `pip install litellm`), one process a
farm. It imports LiteLLM, prints `ready PORT`, and waits for `POST /configure` with the
farm's base URLs; then it serves `POST /v1/chat/completions` (OpenAI's Chat Completions,
streamed) for the model groups `openai@KEY`, `anthropic@KEY` and `compatible@KEY`, through
one Router set up for resilience as LiteLLM's docs recommend ("Retries, fallbacks and
cooldowns"): retries that honour `Retry-After`, fallbacks in the benchmark's order (the
loop's provider, then Anthropic), cooldowns, each deployment's rpm/tpm, and the mid-stream
fallback that continues a broken stream on a deployment that supports a prefill.

A failure before the stream is answered with the status LiteLLM's exception carries; a
failure after it is an OpenAI error chunk, as LiteLLM's proxy sends it. Not run in CI.
"""

import asyncio
import json
import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from aiohttp import web  # noqa: E402

import litellm  # noqa: E402
from litellm import Router  # noqa: E402

KEYS = ["team-key", "farm-low-credit"]
# The farm's limits per key (farm/bad-day/src/main.rs, `farm_config`).
RPM, TPM = 240, 72_000
# The read timeout every strategy gets (farm/bad-day/src/sse.rs, `READ_TIMEOUT`).
READ_TIMEOUT = 2.0

state = {}


def router(urls):
    model_list = []
    for key in KEYS:
        for name, model, base, prefill in [
            ("openai", "openai/farm-model", urls["openai"], False),
            # LiteLLM appends /v1/messages to an Anthropic base.
            ("anthropic", "anthropic/farm-model", urls["anthropic"].removesuffix("/v1"), True),
            ("compatible", "hosted_vllm/farm-model", urls["compatible"], False),
        ]:
            model_list.append({
                "model_name": f"{name}@{key}",
                "litellm_params": {"model": model, "api_base": base, "api_key": key,
                                   "rpm": RPM, "tpm": TPM},
                "model_info": {"supports_assistant_prefill": prefill},
            })
    fallbacks = []
    for key in KEYS:
        fallbacks.append({f"openai@{key}": [f"anthropic@{key}"]})
        fallbacks.append({f"compatible@{key}": [f"anthropic@{key}"]})
    return Router(
        model_list=model_list,
        num_retries=3,
        fallbacks=fallbacks,
        allowed_fails=3,
        cooldown_time=5,
        timeout=20,
        stream_timeout=READ_TIMEOUT,
        enable_mid_stream_fallback_continuation=True,
    )


async def configure(request):
    state["router"] = router(await request.json())
    return web.json_response({"ok": True})


def error_body(e):
    return {"error": {"message": str(e)[:500], "type": type(e).__name__,
                      "code": getattr(e, "status_code", 500)}}


async def chat(request):
    body = await request.json()
    try:
        stream = await state["router"].acompletion(
            model=body["model"], messages=body["messages"], stream=True,
            max_tokens=body.get("max_tokens", 1024))
    except Exception as e:  # noqa: BLE001 - every failure is answered, as the proxy answers it
        status = getattr(e, "status_code", 500)
        status = status if isinstance(status, int) and 400 <= status < 600 else 500
        headers = {}
        retry_after = getattr(getattr(e, "response", None), "headers", {}) or {}
        if "retry-after" in retry_after:
            headers["retry-after"] = retry_after["retry-after"]
        return web.json_response(error_body(e), status=status, headers=headers)
    response = web.StreamResponse(headers={"content-type": "text/event-stream"})
    await response.prepare(request)
    try:
        async for chunk in stream:
            await response.write(f"data: {chunk.model_dump_json()}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
    except Exception as e:  # noqa: BLE001
        await response.write(f"data: {json.dumps(error_body(e))}\n\n".encode())
    return response


async def main():
    litellm.suppress_debug_info = True
    app = web.Application()
    app.router.add_post("/configure", configure)
    app.router.add_post("/v1/chat/completions", chat)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print(f"ready {port}", flush=True)
    # Runs until the benchmark kills it (or its stdin closes).
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


asyncio.run(main())
