"""Independent implementations of every engine function, as a learner would write them for
``POST /api/v1/check/code``: written from the formulas (papers, upstream docs), not from the engine's code.

Each entry is Python source defining the function named like the registry name's last component; it
takes the stand-alone check's inputs (``standalone_spec(name)["args"]``) as keyword arguments and returns
the function's first output under the engine's default arguments (verl conventions). Advantage
estimators compute under ``torch.no_grad()``, as upstream does.
"""

from __future__ import annotations

HEADER = "import math\nimport torch\nimport torch.nn.functional as F\n\n\n"


def _src(body: str) -> str:
    return HEADER + body.strip("\n") + "\n"


# ------------------------------------------------------------------------------ shared snippets
_GROUPS = '''
def _groups(index):
    out = {}
    for i, g in enumerate(index.tolist()):
        out.setdefault(g, []).append(i)
    return list(out.values())
'''

_VERL_RETURNS = '''
def _returns(rewards, mask, gamma=1.0):
    B, T = rewards.shape
    out = torch.zeros_like(rewards)
    carry = torch.zeros(B, dtype=rewards.dtype)
    for t in reversed(range(T)):
        g = rewards[:, t] + gamma * carry
        out[:, t] = g
        carry = mask[:, t] * g          # the sum restarts after a masked position
    return out
'''

_VERL_WHITEN = '''
def _whiten(x, m):
    n = m.sum()
    mu = (x * m).sum() / (n + 1e-8)
    var = ((x - mu) ** 2 * m).sum() / (n + 1e-8) * n / (n - 1)
    return (x - mu) * torch.rsqrt(var + 1e-8)
'''

IMPLEMENTATIONS: dict[str, str] = {
    "advantages.discounted_returns": _src(_VERL_RETURNS + '''
def discounted_returns(rewards, mask):
    with torch.no_grad():
        return _returns(rewards, mask)
'''),
    "advantages.gae": _src('''
def gae(rewards, values, mask):
    with torch.no_grad():
        B, T = rewards.shape
        adv = torch.zeros_like(rewards)
        next_v = torch.zeros(B, dtype=rewards.dtype)
        last = torch.zeros(B, dtype=rewards.dtype)
        for t in reversed(range(T)):
            m = mask[:, t]
            a = rewards[:, t] + next_v - values[:, t] + last
            next_v = m * values[:, t] + (1 - m) * next_v    # bootstrap from the next counted token
            last = m * a + (1 - m) * last
            adv[:, t] = last
        return adv
'''),
    "advantages.gpg": _src(_GROUPS + '''
def gpg(scores, index):
    with torch.no_grad():
        B = scores.shape[0]
        m = int((scores != 0).sum())
        alpha = float(torch.tensor(B, dtype=torch.float32) / torch.tensor(max(m, 1), dtype=torch.float32))
        out = torch.zeros_like(scores)
        for rows in _groups(index):
            s = scores[rows]
            mean = s.mean() if len(rows) > 1 else torch.zeros((), dtype=scores.dtype)
            out[rows] = alpha * (s - mean)
        return out
'''),
    "advantages.grpo": _src(_GROUPS + '''
def grpo(scores, index):
    with torch.no_grad():
        out = torch.zeros_like(scores)
        for rows in _groups(index):
            s = scores[rows]
            if len(rows) == 1:
                out[rows] = s / (1 + 1e-6)
            else:
                out[rows] = (s - s.mean()) / (s.std() + 1e-6)
        return out
'''),
    "advantages.grpo_multi": _src(_GROUPS + '''
def grpo_multi(rewards_per_func, index):
    with torch.no_grad():
        r = rewards_per_func.sum(dim=1)
        out = torch.zeros_like(r)
        for rows in _groups(index):
            s = r[rows]
            if len(rows) == 1:
                continue                        # its std is undefined: TRL's nan advantage becomes 0
            out[rows] = (s - s.mean()) / (s.std() + 1e-4)
        return out
'''),
    "advantages.grpo_passk": _src(_GROUPS + '''
def grpo_passk(scores, index):
    with torch.no_grad():
        out = torch.zeros_like(scores)
        for rows in _groups(index):
            s = scores[rows]
            order = sorted(range(len(rows)), key=lambda i: (-float(s[i]), i))
            best, second = order[0], order[1]
            out[rows[best]] = (s[best] - s[second]) / (s.std() + 1e-6)
        return out
'''),
    "advantages.opo": _src(_GROUPS + '''
def opo(scores, index, mask):
    with torch.no_grad():
        lengths = mask.sum(dim=1)
        out = torch.zeros_like(scores)
        for rows in _groups(index):
            s, l = scores[rows], lengths[rows]
            base = (l * s).sum() / l.sum() if len(rows) > 1 else torch.zeros((), dtype=scores.dtype)
            out[rows] = s - base
        return out
'''),
    "advantages.reinforce_pp": _src(_VERL_RETURNS + '''
def reinforce_pp(token_level_rewards, mask):
    with torch.no_grad():
        return _returns(token_level_rewards, mask)
'''),
    "advantages.reinforce_pp_baseline": _src(_GROUPS + _VERL_WHITEN + '''
def reinforce_pp_baseline(scores, index, mask):
    with torch.no_grad():
        a = torch.zeros_like(scores)
        for rows in _groups(index):
            s = scores[rows]
            a[rows] = s - s.mean() if len(rows) > 1 else s
        tokens = a[:, None] * mask
        return _whiten(tokens, mask) * mask
'''),
    "advantages.remax": _src('''
def remax(token_level_rewards, reward_baselines, mask):
    with torch.no_grad():
        r = token_level_rewards * mask
        return torch.flip(torch.cumsum(torch.flip(r, [1]), 1), [1])
'''),
    "advantages.rloo": _src(_GROUPS + '''
def rloo(scores, index):
    with torch.no_grad():
        out = scores.clone()
        for rows in _groups(index):
            c = len(rows)
            if c > 1:
                s = scores[rows]
                out[rows] = (c * s - s.sum()) / (c - 1)
        return out
'''),
    "bon.kl": _src('''
def kl(n):
    return torch.log(n) - (n - 1) / n
'''),
    "bon.pass_at_k": _src('''
def pass_at_k(n, c, k):
    out = []
    for nn, cc, kk in zip(n.tolist(), c.tolist(), k.tolist()):
        if nn - cc < kk:
            out.append(1.0)
        else:
            prod = 1.0
            for i in range(int(nn - cc) + 1, int(nn) + 1):
                prod *= 1.0 - kk / i
            out.append(1.0 - prod)
    return torch.tensor(out, dtype=n.dtype)
'''),
    "cpo.loss": _src('''
def loss(policy_chosen_logps, policy_rejected_logps):
    return -F.logsigmoid(0.1 * (policy_chosen_logps - policy_rejected_logps))
'''),
    "divergence.alpha": _src('''
def alpha(p, q, alpha):
    return (1 - (p ** alpha * q ** (1 - alpha)).sum(-1)) / (alpha * (1 - alpha))
'''),
    "divergence.chi2": _src('''
def chi2(p, q):
    # a term with p = q = 0 is 0 (0/0 in floating point)
    return torch.where((p == 0) & (q == 0), torch.zeros_like(p), (p - q) ** 2 / q).sum(-1)
'''),
    "divergence.cross_entropy": _src('''
def cross_entropy(p, q):
    return -torch.xlogy(p, q).sum(-1)
'''),
    "divergence.entropy": _src('''
def entropy(p):
    return -torch.xlogy(p, p).sum(-1)
'''),
    "divergence.hellinger": _src('''
def hellinger(p, q):
    return 0.5 * ((p.sqrt() - q.sqrt()) ** 2).sum(-1)
'''),
    "divergence.js": _src('''
def js(p, q):
    m = (p + q) / 2
    kl = lambda a, b: (torch.xlogy(a, a) - torch.xlogy(a, b)).sum(-1)
    return 0.5 * kl(p, m) + 0.5 * kl(q, m)
'''),
    "divergence.tv": _src('''
def tv(p, q):
    return 0.5 * (p - q).abs().sum(-1)
'''),
    "dpo.gradient": _src('''
def gradient(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps):
    beta = 0.1
    h = (policy_chosen_logps - ref_chosen_logps) - (policy_rejected_logps - ref_rejected_logps)
    return -beta / h.shape[0] * torch.sigmoid(-beta * h)
'''),
    "dpo.implicit_reward": _src('''
def implicit_reward(log_prob, ref_log_prob):
    return 0.1 * (log_prob - ref_log_prob)
'''),
    "dpo.loss": _src('''
def loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps):
    h = (policy_chosen_logps - ref_chosen_logps) - (policy_rejected_logps - ref_rejected_logps)
    return -F.logsigmoid(0.1 * h)
'''),
    "entropy.covariance": _src('''
def covariance(log_prob, advantages, mask):
    n = mask.sum()
    mean_logp = (log_prob.detach() * mask).sum() / (n + 1e-8)     # the centre is held fixed (clip_cov)
    mean_adv = (advantages * mask).sum() / (n + 1e-8)
    return (log_prob - mean_logp) * (advantages - mean_adv) * mask
'''),
    "grpo.loss": _src('''
def loss(log_prob, advantages, mask, ref_log_prob):
    ratio = torch.exp(log_prob - log_prob.detach())      # on-policy: 1, with the policy's gradient
    a = advantages[:, None]
    pg = -torch.min(ratio * a, torch.clamp(ratio, 0.8, 1.2) * a)
    d = ref_log_prob - log_prob
    per_token = pg + 0.04 * (torch.exp(d) - d - 1)
    per_row = (per_token * mask).sum(1) / mask.sum(1).clamp(min=1)
    return per_row.mean()
'''),
    "kl.exact": _src('''
def exact(p, q):
    return (torch.xlogy(p, p) - torch.xlogy(p, q)).sum(-1)
'''),
    "kl.full_vocab": _src('''
def full_vocab(logits, ref_logits):
    logp, logq = torch.log_softmax(logits, -1), torch.log_softmax(ref_logits, -1)
    return (logp.exp() * (logp - logq)).sum(-1)
'''),
    "kl.gaussian": _src('''
def gaussian(mu_p, sigma_p, mu_q, sigma_q):
    return torch.log(sigma_q / sigma_p) + (sigma_p ** 2 + (mu_p - mu_q) ** 2) / (2 * sigma_q ** 2) - 0.5
'''),
    "kl.k1": _src('''
def k1(log_prob, ref_log_prob):
    return log_prob - ref_log_prob
'''),
    "kl.k2": _src('''
def k2(log_prob, ref_log_prob):
    return 0.5 * (log_prob - ref_log_prob) ** 2
'''),
    "kl.k3": _src('''
def k3(log_prob, ref_log_prob):
    d = ref_log_prob - log_prob
    return torch.exp(d) - d - 1
'''),
    "kl.masked_estimate": _src('''
def masked_estimate(log_prob, ref_log_prob, mask, estimator):
    x = log_prob - ref_log_prob
    k = {"k1": x, "k2": 0.5 * x ** 2, "k3": torch.exp(-x) + x - 1}[estimator]
    return (k * mask).sum() / (mask.sum() + 1e-8)
'''),
    "kl.penalty": _src('''
def penalty(log_prob, ref_log_prob):
    return log_prob - ref_log_prob
'''),
    "kl.sequence": _src('''
def sequence(log_prob, ref_log_prob, mask):
    return ((log_prob - ref_log_prob) * mask).sum(-1)
'''),
    "kl_controller.adaptive": _src('''
def adaptive(kl_coef, current_kl, target_kl, n_steps, horizon):
    e = min(max(current_kl / target_kl - 1, -0.2), 0.2)
    return kl_coef * (1 + e * n_steps / horizon)
'''),
    "kl_controller.fixed": _src('''
def fixed(kl_coef):
    return kl_coef
'''),
    "kto.loss": _src('''
def loss(policy_chosen_logps, policy_rejected_logps, ref_chosen_logps, ref_rejected_logps,
         policy_kl_logps, ref_kl_logps):
    beta = 0.1
    z = (policy_kl_logps - ref_kl_logps).mean().detach().clamp(min=0)
    chosen = 1 - torch.sigmoid(beta * (policy_chosen_logps - ref_chosen_logps - z))
    rejected = 1 - torch.sigmoid(beta * (z - (policy_rejected_logps - ref_rejected_logps)))
    return torch.cat([chosen, rejected])
'''),
    "loss.aggregate": _src('''
def aggregate(loss_mat, mask, mode):
    x = loss_mat * mask
    if mode == "token-mean":
        return x.sum() / mask.sum()
    counted = mask.sum(1) > 0
    if mode == "seq-mean-token-sum":
        return x.sum(1)[counted].sum() / counted.sum()
    if mode == "seq-mean-token-mean":
        return (x.sum(1) / (mask.sum(1) + 1e-8))[counted].sum() / counted.sum()
    return x.sum() / loss_mat.shape[1]
'''),
    "masked.mean": _src('''
def mean(values, mask):
    return (values * mask).sum() / (mask.sum() + 1e-8)
'''),
    "masked.sum": _src('''
def sum(values, mask):
    return torch.where(mask.bool(), values, torch.zeros_like(values)).sum()
'''),
    "masked.var": _src('''
def var(values, mask):
    n = mask.sum()
    mu = (values * mask).sum() / (n + 1e-8)
    return ((values - mu) ** 2 * mask).sum() / (n + 1e-8) * n / (n - 1)
'''),
    "masked.whiten": _src(_VERL_WHITEN + '''
def whiten(values, mask):
    return _whiten(values, mask)
'''),
    "orpo.loss": _src('''
def _log1mexp(x):
    return torch.where(x > -math.log(2), torch.log(-torch.expm1(x)), torch.log1p(-torch.exp(x)))


def loss(chosen_avg_logps, rejected_avg_logps):
    odds = lambda a: a - _log1mexp(a)
    return 0.1 * F.logsigmoid(odds(chosen_avg_logps) - odds(rejected_avg_logps))
'''),
    "overopt.gold_reward": _src('''
def gold_reward(kl, alpha, beta, method):
    d = torch.sqrt(kl)
    if method == "bon":
        return d * (alpha - beta * d)
    return alpha * d - beta * torch.xlogy(d, d)
'''),
    "overopt.peak": _src('''
def peak(alpha, beta, method):
    if method == "bon":
        return max(alpha, 0.0) / (2 * beta)
    return math.exp(alpha / beta - 1)
'''),
    "policy.optimal": _src('''
def optimal(ref_probs, rewards, beta):
    return torch.softmax(rewards / beta + torch.log(ref_probs), dim=-1)
'''),
    "ppo.entropy": _src('''
def entropy(logits):
    logp = torch.log_softmax(logits, -1)
    return -(logp.exp() * logp).sum(-1)
'''),
    "ppo.policy_loss": _src('''
def policy_loss(old_log_prob, log_prob, advantages, mask):
    ratio = torch.exp(torch.clamp(log_prob - old_log_prob, -20, 20))
    l1 = -advantages * ratio
    l2 = -advantages * torch.clamp(ratio, 0.8, 1.2)
    clipped = torch.max(l1, l2)
    dual = torch.min(-advantages * 3.0, clipped)
    per_token = torch.where(advantages < 0, dual, clipped)
    return (per_token * mask).sum() / mask.sum()
'''),
    "ppo.ratio": _src('''
def ratio(log_prob, old_log_prob):
    return torch.exp(log_prob - old_log_prob)
'''),
    "ppo.value_loss": _src('''
def value_loss(vpreds, returns, values, mask):
    clipped = values + torch.clamp(vpreds - values, -0.5, 0.5)
    worst = torch.max((vpreds - returns) ** 2, (clipped - returns) ** 2)
    return 0.5 * (worst * mask).sum() / mask.sum()
'''),
    "preference.bradley_terry": _src('''
def bradley_terry(reward_chosen, reward_rejected):
    return torch.sigmoid(reward_chosen - reward_rejected)
'''),
    "reward.kl_in_reward": _src('''
def kl_in_reward(token_level_scores, old_log_prob, ref_log_prob, mask, kl_coef):
    return token_level_scores - kl_coef * (old_log_prob - ref_log_prob) * mask
'''),
    "reward.terminal": _src('''
def terminal(scores, mask, log_prob, ref_log_prob, kl_coef):
    rewards = -kl_coef * (log_prob - ref_log_prob) * mask
    T = mask.shape[1]
    last = T - 1 - torch.argmax(torch.flip(mask, [1]), dim=1)     # the last counted token of each row
    bonus = torch.zeros_like(rewards)
    bonus[torch.arange(mask.shape[0]), last] = 1.0
    return rewards + bonus * scores[:, None]
'''),
    "reward.overlong_penalty": _src('''
def overlong_penalty(response_length, max_resp_len, overlong_buffer_len):
    exceed = response_length - (max_resp_len - overlong_buffer_len)
    return torch.clamp(-exceed / overlong_buffer_len, max=0.0)
'''),
    "reward_model.loss": _src('''
def loss(chosen_rewards, rejected_rewards):
    return -F.logsigmoid(chosen_rewards - rejected_rewards).mean()
'''),
    "rollout.importance_weights": _src('''
def importance_weights(old_log_prob, rollout_log_prob, mask):
    # no threshold (the default): nothing is rejected, the response mask comes back unchanged
    return mask.clone()
'''),
    "simpo.loss": _src('''
def loss(chosen_avg_logps, rejected_avg_logps):
    return -F.logsigmoid(2.0 * (chosen_avg_logps - rejected_avg_logps) - 0.5)
'''),
    "trpo.surrogate": _src('''
def surrogate(log_prob, old_log_prob, advantages, mask):
    return torch.exp(log_prob - old_log_prob) * advantages
'''),
}
