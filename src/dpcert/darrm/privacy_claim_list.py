"""The claims of the DaRRM privacy pillar (at the paper's parameters) [JZJ24].

Theorem, lemma, section and equation numbers in this module are those of [JZJ24] unless another key is given.

Ids ``darrm.<lemma or theorem>.<setting>``; the slow ones (K = 101, Δ > 0 for every ε) are marked ``slow`` and
run under ``dpcert verify --full``. Every claim here is expected CERTIFIED: the negative statements are phrased
positively (``...not_private...`` is CERTIFIED when a counterexample is certified).
"""

from __future__ import annotations

from dpcert.core.claim import Claim, FunctionClaim, Verdict
from dpcert.darrm import privacy_claims as pc
from dpcert.darrm.claims import TABLE3

__all__ = ["CLAIMS"]

P = "Jiang–Zhang–Joshi, DaRRM (TMLR)"
EPS = "0.1"
DELTA_FIG2 = "0.00001"
K101_MS = (10, 20, 30, 40, 60, 80)


def _fc(cid: str, ref: str, statement: str, fn, slow: bool = False, **inputs) -> FunctionClaim:
    return FunctionClaim(cid, f"{P}, {ref}", statement, fn=fn, inputs=inputs, slow=slow)


def _claims() -> list[Claim]:
    out: list[Claim] = [
        _fc(
            "darrm.lemma3_1.k11",
            "Lemma 3.1",
            "gamma_Sub equals subsampling (K = 11, m = 1..11)",
            pc.check_lemma_3_1,
            K=11,
            ms=tuple(range(1, 12)),
        ),
        _fc(
            "darrm.lemma3_1.k35",
            "Lemma 3.1, App. D.1.1",
            "gamma_Sub equals subsampling (K = 35, M in {10,13,15,20})",
            pc.check_lemma_3_1,
            K=35,
            ms=(10, 13, 15, 20),
        ),
        _fc(
            "darrm.lemma3_1.k101",
            "Lemma 3.1, App. D.1.2",
            "gamma_Sub equals subsampling (K = 101)",
            pc.check_lemma_3_1,
            K=101,
            ms=K101_MS,
        ),
        _fc(
            "darrm.lemma3_4.identity_k7",
            "Lemma 3.4 (Eqs. 31-53)",
            "f = 2(P(D) - e^{m eps} P(D')) + e^{m eps} - 1 and f(1-p,1-p') = -f(p,p') (K = 7, m = 3)",
            pc.check_lemma_3_4_identity,
            K=7,
            m=3,
        ),
        _fc(
            "darrm.lemma5_1.corners_pure",
            "Lemma 5.1",
            "F has the 4 listed corners when Delta = 0",
            pc.check_corners,
            Delta="0",
            eps=EPS,
        ),
        _fc(
            "darrm.lemma5_1.corners_approx",
            "Lemma 5.1",
            "F has the 8 listed corners when Delta > 0",
            pc.check_corners,
            Delta=DELTA_FIG2,
            eps=EPS,
        ),
        _fc(
            "darrm.lemma_b9.k_le_11",
            "Lemma B.9",
            "E[C(X,i)C(K-X,m-i)]/C(K,m) = C(m,i)p^i(1-p)^(m-i), K <= 11",
            pc.check_lemma_b9,
            Kmax=11,
        ),
        _fc(
            "darrm.eq159.k11",
            "Lemma B.10, Eq. 159",
            "closed form of E[h_DSub(X+1) - h_DSub(X)] (K = 11)",
            pc.check_eq_159,
            K=11,
            ms=(1, 2, 3, 4, 5),
        ),
        _fc(
            "darrm.eq159.k101",
            "Lemma B.10, Eq. 159",
            "closed form of E[h_DSub(X+1) - h_DSub(X)] (K = 101)",
            pc.check_eq_159,
            K=101,
            ms=(10, 20, 30, 40),
        ),
        _fc(
            "darrm.lemma_b11.dsub_ge_sub",
            "Section B.3, Lemma B.11",
            "gamma_DSub >= gamma_Sub pointwise, odd K < 60",
            pc.check_dsub_ge_sub,
            Kmax=59,
        ),
        _fc(
            "darrm.lemma_b11.utility.k11",
            "Lemma B.11",
            "E(DaRRM_gamma_DSub) <= E(DaRRM_gamma_Sub) for K = 11 i.i.d. mechanisms and every p in [0, 1]",
            pc.check_lemma_b11,
            K=11,
            ms=(1, 2, 3, 4, 5),
        ),
        _fc(
            "darrm.lemma_b11.utility.k101",
            "Lemma B.11",
            "E(DaRRM_gamma_DSub) <= E(DaRRM_gamma_Sub) for K = 101 i.i.d. mechanisms and every p in [0, 1]",
            pc.check_lemma_b11,
            K=101,
            ms=(10, 20, 30, 40),
        ),
    ]
    out.append(
        FunctionClaim(
            "darrm.alg3.ties_to_one.k11_m2",
            f"{P}, Algorithm 3 and Lemma 3.1 (ties to 1)",
            "SubMaj as printed (ties output 1) has the output law of DaRRM_gamma_Sub, K = 11, m = 2",
            fn=pc.check_algorithm3_ties_to_one,
            inputs={"K": 11, "m": 2},
            expected=Verdict.REFUTED,
            erratum="Algorithm 3 outputs I{L/m >= 1/2}, sending ties to 1; Lemma 3.1's gamma_Sub (and its symmetry) "
            "needs a fair coin on ties, as Eq. 20's +1/2 term shows.",
        )
    )
    # C4: gamma_Sub private, Figure 2 (approximate DP) and D.1.2 (pure DP)
    for m in (1, 3, 5, 7):
        out.append(
            _fc(
                f"darrm.fig2.sub.m{m}",
                "Lemma 3.1, Section 6.1 / Figure 2",
                f"DaRRM_gamma_Sub is ({m} eps, 1-(1-Delta)^{m})-DP, K = 11, eps = 0.1, Delta = 1e-5",
                pc.check_private,
                gamma="sub",
                K=11,
                m=str(m),
                eps=EPS,
                Delta=DELTA_FIG2,
                delta="general",
            )
        )
        out.append(
            _fc(
                f"darrm.fig2.sub.m{m}.all_eps",
                "Lemma 3.1, Section 6.1 / Figure 2",
                f"DaRRM_gamma_Sub is ({m} eps, 1-(1-Delta)^{m})-DP for every eps > 0, K = 11, Delta = 1e-5",
                pc.check_private_all_eps,
                slow=True,
                gamma="sub",
                K=11,
                m=str(m),
                Delta=DELTA_FIG2,
                delta="general",
            )
        )
    for K, ms, slow in ((11, (1, 3, 5, 7, 9, 11), False), (101, K101_MS, True)):
        for m in ms:
            out.append(
                _fc(
                    f"darrm.d12.sub.k{K}.m{m}",
                    "Lemma 3.1, App. D.1.2",
                    f"DaRRM_gamma_Sub is {m} eps-DP (pure), K = {K}, eps = 0.1",
                    pc.check_private,
                    slow=slow,
                    gamma="sub",
                    K=K,
                    m=str(m),
                    eps=EPS,
                    Delta="0",
                    delta="0",
                )
            )
            out.append(
                _fc(
                    f"darrm.lemma_a1.pconst.k{K}.m{m}",
                    "Lemma A.1 (Eq. 4), App. D.1.2",
                    f"RR with p_const (tau = K, lambda = 0) is {m} eps-DP, K = {K}, eps = 0.1",
                    pc.check_private,
                    slow=slow,
                    gamma="const",
                    K=K,
                    m=str(m),
                    eps=EPS,
                    Delta="0",
                    delta="0",
                )
            )
    # C5 at App. D.1.1 (K = 35, Table 3's printed m, tau, lambda, delta; eps = 0.1, Delta = 1e-5)
    for M, (m, tau, lam, _, delta) in TABLE3.items():
        out.append(
            _fc(
                f"darrm.lemma_a1.pconst.d11.M{M}",
                "Lemma A.1 (Eq. 4), App. D.1.1, Table 3",
                f"RR with p_const (tau = {tau}, lambda = {lam}) is ({m} eps, {delta})-DP for K = 35, "
                "eps = 0.1, Delta = 1e-5 (27.0 M multisets)",
                pc.check_pconst_upper,
                slow=True,
                K=35,
                m=m,
                tau=tau,
                lam=lam,
                eps=EPS,
                Delta=DELTA_FIG2,
                delta=delta,
            )
        )
    # C6: Theorem 4.1 (i.i.d.), here implied by the stronger multiset certificate; C7: non-identical mechanisms
    for K, ms, slow in ((11, tuple(range(1, 12)), False), (101, K101_MS, True)):
        for m in ms:
            out.append(
                _fc(
                    f"darrm.thm4_1.k{K}.m{m}",
                    "Theorem 4.1, Lemmas B.5 / B.10",
                    f"DaRRM_gamma_max is {m} eps-DP for K = {K} i.i.d. mechanisms, eps = 0.1",
                    pc.check_private_iid,
                    slow=slow,
                    gamma="max",
                    K=K,
                    m=str(m),
                    eps=EPS,
                    Delta="0",
                    delta="0",
                )
            )
            if 2 * m <= K - 1:
                out.append(
                    _fc(
                        f"darrm.c7.dsub_non_iid.k{K}.m{m}",
                        "Theorem 4.1 extended",
                        f"DaRRM_gamma_DSub is {m} eps-DP for K = {K} NON-identical mechanisms, eps = 0.1",
                        pc.check_private,
                        slow=slow,
                        gamma="dsub",
                        K=K,
                        m=str(m),
                        eps=EPS,
                        Delta="0",
                        delta="0",
                    )
                )
    for m in range(1, 12):
        out.append(
            _fc(
                f"darrm.thm4_1.all_eps.k11.m{m}",
                "Theorem 4.1 (for every eps)",
                f"DaRRM_gamma_max is {m} eps-DP for every eps > 0 and all K = 11 mechanisms",
                pc.check_private_all_eps,
                gamma="max",
                K=11,
                m=str(m),
                Delta="0",
                delta="0",
            )
        )
    # C8: gamma = 1 is m eps-DP iff m >= (K+1)/2
    out += [
        _fc(
            "darrm.c8.gamma_one.k11.m6_private",
            "Lemma B.5",
            "gamma = 1 is 6 eps-DP for K = 11 (m = (K+1)/2), eps = 0.1",
            pc.check_private,
            gamma="one",
            K=11,
            m="6",
            eps=EPS,
            Delta="0",
            delta="0",
        ),
        _fc(
            "darrm.c8.gamma_one.k11.m6_all_eps",
            "Lemma B.5",
            "gamma = 1 is 6 eps-DP for K = 11 for every eps > 0",
            pc.check_private_all_eps,
            gamma="one",
            K=11,
            m="6",
            Delta="0",
            delta="0",
        ),
        _fc(
            "darrm.c8.gamma_one.k11.m5_not_private_iid",
            "Lemma B.5 converse",
            "gamma = 1 is NOT 5 eps-DP already for K = 11 identical mechanisms, eps = 0.1 (a certified point)",
            pc.check_not_private_iid,
            gamma="one",
            K=11,
            m="5",
            eps=EPS,
            Delta="0",
            delta="0",
        ),
    ]
    return out


CLAIMS: list[Claim] = _claims()
