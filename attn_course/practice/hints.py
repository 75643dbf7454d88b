"""알려진 실수와 그 한국어 힌트(``MISTAKES``).

채점기는 학생 함수가 어떤 "틀린 참조"와 똑같이 움직이면 그 실수의 키를 ``CheckResult.mistake``에 넣고, 여기 적힌
힌트를 보여 줍니다. 테스트(``tests/test_exercises.py``)는 모든 키가 적어도 한 채점기에서 실제로 나오는지 확인합니다.
값과 선택지를 묻는 문제의 힌트는 여기 없습니다: 답이 드러나지 않도록 채점 zip의 숨은 테스트에만 있습니다.
"""

from __future__ import annotations

__all__ = ["MISTAKES"]

# 키는 CheckResult.mistake 에 들어갑니다 (테스트가 이 키로 확인).
MISTAKES: dict[str, str] = {
    # ---- 어텐션 계산 --------------------------------------------------------------------------
    "no_scale": "점수에 1/sqrt(d_k)를 곱하지 않았습니다(스케일링 빠짐). "
    "`scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)`처럼 d_k의 제곱근으로 나누세요.",
    "softmax_axis": "소프트맥스를 잘못된 축(dim=-2, 쿼리 축)으로 취했습니다. "
    "가중치는 쿼리마다 키 축을 따라 합이 1이어야 하므로 `softmax(scores, dim=-1)`입니다.",
    "mask_inverted": "마스크 극성이 뒤집혔습니다. 이 책의 bool 마스크는 True = 참여 가능입니다. "
    "True 자리가 아니라 False 자리를 -inf로 채우세요: `scores.masked_fill(~attn_mask, float('-inf'))`.",
    "nan_rows": "모든 키가 가려진 행에서 NaN이 나왔습니다(exp(-inf)/0 = 0/0). 그런 행은 소프트맥스 전에 "
    "점수를 0으로 바꾸고, 소프트맥스 뒤에 가중치를 0으로 만드세요. 출력도 0이 됩니다.",
    "mask_after_softmax": "마스크를 소프트맥스 뒤에 걸었습니다. 그러면 행의 합이 1이 아닙니다. "
    "-inf 채우기는 소프트맥스 앞의 점수에 하세요.",
    "mask_float": "마스크는 bool 텐서여야 합니다. bool이 아닌 0/1 텐서는 막지 못합니다: 실수(float) 텐서는 점수에 더하는 "
    "덧셈 마스크로 해석되어 0과 1을 더할 뿐이고, 정수(int) 텐서는 어텐션 함수가 받지 않습니다. `lengths` 비교처럼 "
    "bool을 내는 연산으로 만들거나 `.bool()`로 바꾸세요.",
    "not_implemented": "함수가 None을 돌려주었습니다. 아직 구현하지 않았거나 return을 빠뜨렸습니다.",
    # ---- 헤드 나누기와 합치기 (시퀀스가 먼저인 배치) -----------------------------------------------
    "batch_first": "입력의 첫 축은 배치가 아니라 시퀀스입니다: (L, B, E). nn.MultiheadAttention의 기본값"
    "(batch_first=False)이 이 배치 방식입니다. (B, L, E)로 보고 계산했습니다.",
    "split_order_seq": "헤드를 잘못 나누었습니다. (L, B, E)를 곧바로 (B, H, L, Dh)로 reshape하면 토큰과 배치가 "
    "뒤섞입니다. 먼저 `view(L, B, H, Dh)`로 마지막 축만 나누고, `permute(1, 2, 0, 3)`로 축을 옮기세요.",
    "merge_order_seq": "헤드를 잘못된 순서로 이어 붙였습니다. (B, H, L, Dh)를 곧바로 (L, B, E)로 reshape하면 헤드와 "
    "토큰이 뒤섞입니다. 먼저 `permute(2, 0, 1, 3)`으로 (L, B, H, Dh)를 만든 뒤 마지막 두 축을 합치세요.",
    "merge_view": "축을 옮긴(transpose, permute) 텐서는 메모리상 연속이 아니어서 `.view`가 실패합니다. "
    "`.contiguous().view(...)` 또는 `.reshape(...)`를 쓰세요.",
    # ---- nn.MultiheadAttention 손으로 ---------------------------------------------------------
    "kpm_polarity": "key_padding_mask의 극성이 뒤집혔습니다. nn.MultiheadAttention의 key_padding_mask는 "
    "True = 무시(패딩)입니다. True 자리의 점수를 -inf로 채우세요: "
    "`scores.masked_fill(key_padding_mask[:, None, None, :], float('-inf'))`.",
    "no_out_proj": "출력 투영(out_proj, 논문의 W^O)을 빠뜨렸습니다. 헤드를 이어 붙인 뒤 "
    "`out_proj.weight`와 `out_proj.bias`로 한 번 더 섞어야 모듈의 출력과 같습니다.",
    "no_W_o": "출력 투영 W_o를 빠뜨렸습니다. attn_lib의 MultiHeadAttention에서는 헤드를 합친 뒤(`mha.merge_heads`) "
    "`mha.W_o(...)`를 한 번 더 거쳐야 모듈의 출력과 같습니다.",
    "kpm_polarity_build": "만든 마스크의 극성이 뒤집혔습니다. nn.MultiheadAttention의 key_padding_mask는 True = 무시할 "
    "자리([PAD])이고 False = 실제 토큰입니다. 실제 토큰 자리가 True로 나왔습니다: 비교의 방향을 바꾸거나 `~`로 뒤집으세요.",
    "in_proj_order": "in_proj_weight를 잘못 나누었습니다. (3E, E)에 W_q, W_k, W_v가 이 순서로 세로로 쌓여 있습니다: "
    "`W_q, W_k, W_v = in_proj_weight.chunk(3)` (편향 in_proj_bias도 같은 순서).",
    # ---- 패딩과 마스크 ------------------------------------------------------------------------
    "kpm_shape": "key_padding_mask는 (B, S) 모양입니다. (B, 1, 1, S)는 이 책의 attn_mask 모양이고, "
    "nn.MultiheadAttention의 key_padding_mask는 배치와 키 두 축만 받습니다.",
    "padding_side": "패딩이 붙은 쪽을 반대로 잡았습니다. 오른쪽 패딩은 실제 토큰이 앞쪽 lengths[b]칸에, "
    "왼쪽 패딩은 뒤쪽(오른쪽 끝) lengths[b]칸에 있고 [PAD]가 앞에 옵니다.",
    "additive_no_block": "미래 키(j > i)를 막지 않았습니다. 덧셈 마스크에서 차단은 -inf입니다. 거리 편향은 "
    "볼 수 있는 칸(j <= i)에만 두고, j > i 칸은 -inf로 채우세요.",
    "bias_sign": "편향의 부호가 반대입니다. 멀리 떨어진 키일수록 점수를 깎아야 하므로 -slope × (i - j)입니다.",
    "finite_block": "막을 칸을 -inf가 아닌 유한한 값(-1e9, finfo.min 등)으로 채웠습니다. 덧셈 마스크를 더하거나 "
    "float16으로 바꾸면 넘치거나, 모든 키가 가려진 행이 오류 없이 틀린 값을 냅니다. float('-inf')를 쓰세요.",
    "causal_direction": "막는 방향이 반대입니다. 쿼리 i는 키 0..i(과거와 자기 자신)를 보고, j > i(미래)를 막습니다.",
    "mask_bool_not_additive": "bool 마스크를 돌려주었습니다. 덧셈 마스크는 float 텐서입니다: 볼 칸은 편향 값(또는 0), "
    "막을 칸은 -inf.",
    # ---- 온도와 포화 --------------------------------------------------------------------------
    "scale_ignored": "scale 인자를 쓰지 않았습니다. 점수(q @ k^T)에 주어진 scale을 그대로 곱하세요. "
    "1/sqrt(d_k)는 scale의 한 가지 값일 뿐입니다.",
    "draw_order": "난수를 뽑는 순서가 약속과 다릅니다. 같은 생성기 g로 쿼리 (256, d_k)를 먼저, 키 (16, d_k)를 나중에 "
    "뽑아야 같은 실험입니다.",
    "share_log": "몫의 비는 점수 차의 지수입니다(p_i / p_j = exp(s_i - s_j)). 점수에 몫 자체를 넣지 말고 "
    "log(몫)을 넣으세요: s_j = c + log p_j.",
    "share_offset": "고르지 않은 위치도 점수 0을 받아 exp(0) = 1만큼 가중치를 가져갑니다. 고른 위치마다 큰 수 c를 "
    "더해(s_j = c + log p_j) 나머지 위치의 몫을 exp(-c) 정도로 줄이세요.",
    "share_inf": "쿼리에 -inf(또는 inf)가 있습니다. 점수는 쿼리와 원-핫 키의 내적이라, 키의 0과 곱해진 -inf × 0 = NaN이 "
    "모든 점수에 섞입니다. 고르지 않은 위치는 -inf 대신 0으로 두고, 고른 위치에 큰 수 c를 더해(c + log p) 나머지의 몫을 "
    "exp(-c) 정도로 줄이세요.",
    # ---- 헤드 끄기 ---------------------------------------------------------------------------
    "ablate_columns": "W_v.weight의 열을 지웠습니다. nn.Linear의 weight는 (출력, 입력) 모양이라 헤드 h가 만드는 "
    "밸류 칸은 행 h*Dh:(h+1)*Dh입니다. 그 행(과 편향의 같은 칸)을 0으로 만드세요.",
    "ablate_bias": "W_v의 편향을 남겼습니다. 가중치 행만 0으로 하면 헤드 h의 밸류가 편향 벡터가 되어 출력에 남습니다. "
    "W_v.bias의 같은 칸도 0으로 만드세요.",
    "ablate_in_place": "넘겨받은 모듈을 제자리에서 바꾸었습니다. copy.deepcopy(mha)로 사본을 만들어 바꾸고 "
    "사본을 돌려주세요. 원래 모델은 그대로 두어야 다른 헤드도 끄며 비교할 수 있습니다.",
    "ablate_wrong_head": "다른 헤드를 껐습니다. 헤드 h의 칸은 h*Dh부터 (h+1)*Dh 앞까지입니다.",
    "ablate_output_proj": "W_v 대신 다른 투영(W_o, W_q, W_k)을 고쳤습니다. 출력은 같아질 수 있지만 이 문제는 밸류 쪽에서 "
    "헤드를 끄는 문제입니다: W_v.weight의 행과 W_v.bias에서 헤드 h의 칸만 0으로 하고, 나머지 투영은 그대로 두세요.",
    # ---- 크로스 어텐션 -----------------------------------------------------------------------
    "cross_swapped": "쿼리와 키·밸류를 바꿔 넣었습니다. 크로스 어텐션의 쿼리는 디코더 쪽(길이 L), "
    "키와 밸류는 인코더 출력(길이 S)입니다. 가중치 모양은 (B, H, L, S)입니다.",
    "cross_no_mask": "인코더(소스)의 패딩 마스크를 넘기지 않았습니다. 소스 패딩 자리를 가려야 합니다.",
    "cross_causal": "크로스 어텐션에 인과 마스크를 걸었습니다. 디코더의 각 위치는 인코더 출력 전체(패딩 제외)를 볼 수 있습니다.",
    "cross_recompute": "단계마다 W_k, W_v를 다시 불렀습니다. 인코더 출력은 디코딩하는 동안 바뀌지 않으므로 K, V는 "
    "문장마다 한 번(precompute)만 계산하고, 단계에서는 쿼리만 새로 만드세요.",
    "cross_kv_layout": "미리 계산한 K, V의 모양이 다릅니다. 헤드로 나눈 (B, H, S, Dh)로 돌려주세요 "
    "(`mha.split_heads(mha.W_k(encoder_out))`처럼).",
    # ---- 그룹 쿼리 어텐션과 KV 캐시 -----------------------------------------------------------
    "gqa_group_order": "쿼리 헤드와 키·밸류 헤드의 짝이 다릅니다. 쿼리 헤드 h는 키·밸류 헤드 h // G(G = H / Hkv)를 씁니다. "
    "`repeat`(헤드 h % Hkv)가 아니라 `repeat_interleave(G, dim=1)`(또는 repeat_kv)의 순서입니다.",
    "cache_forgot_new": "새 토큰 자신의 키·밸류를 캐시에 붙이지 않았습니다. 새 쿼리는 지난 키들과 자기 키를 함께 봐야 합니다.",
    "cache_order": "새 키·밸류를 캐시의 앞에 붙였습니다. 길이 축(dim=-2)의 끝에 붙여야 캐시의 위치 순서가 "
    "토큰 순서와 같습니다: `torch.cat([past_k, k_new], dim=-2)`.",
    "cache_topleft_mask": "새 쿼리에 왼쪽 위에 맞춘 인과 마스크를 걸었습니다. 새 토큰은 전체에서 마지막 위치라 "
    "캐시의 키 전부와 자기 자신을 볼 수 있습니다(캐시 끝에 맞춘 마스크; 새 토큰이 하나면 마스크가 필요 없습니다).",
    # ---- 회전 위치 임베딩과 블록 단위 어텐션 (8장, 10장) -----------------------------------------
    "rope_half_layout": "앞 절반과 뒤 절반(특징 i와 i + Dh/2)을 짝지었습니다. attn_lib.apply_rope(Hugging Face Llama)의 배치입니다. "
    "이 문제는 RoFormer 논문의 **이웃한 짝** (x_0, x_1), (x_2, x_3), …을 평면 하나로 돌립니다: 짝 i는 특징 2i와 2i + 1입니다.",
    "rope_direction": "회전 방향이 반대입니다. 각도 a = m·theta_i만큼 시계 반대 방향으로 돌리면 "
    "(x, y) -> (x cos a - y sin a, x sin a + y cos a)입니다. sin 항의 부호를 확인하세요.",
    "rope_no_offset": "위치 오프셋을 빠뜨렸습니다. 이 텐서의 행은 위치 0부터가 아니라 start(캐시에 이미 있는 토큰 수)부터입니다: "
    "행 j의 위치는 start + j이고, 각도도 그 위치로 계산합니다.",
    "rope_frequency": "평면마다 도는 속도가 다릅니다. 짝 i(0부터 Dh/2 - 1)의 속도는 theta_i = base ** (-2i / Dh)입니다. "
    "지수의 2를 빠뜨렸거나 분모를 Dh/2로 잡았습니다.",
    "merge_no_rescale": "두 상태를 합칠 때 최댓값의 차이를 잊었습니다. 각 상태의 합 ℓ은 자기 최댓값 m_i를 기준으로 잰 것이라, "
    "새 기준 m = max(m1, m2)로 옮기려면 exp(m_i - m)을 곱해야 합니다: ℓ = ℓ1·exp(m1 - m) + ℓ2·exp(m2 - m).",
    "merge_output_not_rescaled": "합 ℓ은 새 기준으로 고쳤지만 출력 O의 가중치는 고치지 않았습니다. 출력도 같은 배율로 섞어야 합니다: "
    "O = (ℓ1·exp(m1 - m)·O1 + ℓ2·exp(m2 - m)·O2) / ℓ.",
    "merge_inverse_factor": "배율의 지수가 거꾸로입니다. 옛 기준 m_i에서 새 기준 m(더 크거나 같음)으로 옮기는 배율은 "
    "exp(m_i - m) <= 1입니다. exp(m - m_i)는 합을 줄이는 대신 키웁니다.",
    "merge_plain_average": "두 출력을 그냥 평균했습니다. 블록마다 받은 몫이 다르므로, 각 블록의 합을 새 기준으로 고친 "
    "ℓ_i·exp(m_i - m)를 가중치로 섞고 전체 합 ℓ로 나눠야 합니다.",
    "merge_unnormalized": "섞은 출력을 전체 합 ℓ로 나누지 않았습니다. O1, O2는 이미 정규화된(가중치 합 1) 출력이라, "
    "ℓ_i·exp(m_i - m)으로 섞은 뒤 ℓ로 나눠야 가중치의 합이 다시 1입니다.",
    "merge_empty_nan": "볼 키가 하나도 없는 행에서 NaN이 나왔습니다. 두 블록 모두 m = -inf이면 exp(-inf - (-inf)) = exp(NaN)입니다. "
    "그런 행은 m = -inf, ℓ = 0, O = 0으로 두세요(새 기준이 -inf면 0을 기준으로 쓰는 것처럼).",
    "rope_rerotated_cache": "캐시의 키를 다시 돌렸습니다. 캐시에는 이미 자기 위치만큼 돌린 키가 들어 있습니다. "
    "새 토큰의 쿼리와 키만 위치 S로 돌려 붙이세요.",
    "rope_new_key_unrotated": "새 토큰의 키를 돌리지 않고 캐시에 붙였습니다. 쿼리와 마찬가지로 새 키도 위치 S만큼 돌려야 "
    "점수가 거리에만 달립니다.",
    "online_no_rescale": "최댓값이 커질 때 앞 블록들의 합을 고치지 않았습니다. 새 최댓값 m_new가 나오면 "
    "ℓ = ℓ·exp(m_old - m_new) + Σ exp(s - m_new)입니다.",
    "online_inverse_factor": "고치는 배율의 지수가 거꾸로입니다. 앞 블록들의 합에는 exp(m_new - m_old)가 아니라 "
    "exp(m_old - m_new)(1 이하)를 곱합니다.",
    # ---- 연습 페이지 --------------------------------------------------------------------------
    "concat_sum": "두 헤드의 출력을 더했습니다. 이어 붙이기(concatenation)는 더하기가 아니라 마지막 축으로 나란히 "
    "붙이는 것입니다: `torch.cat([out_a, out_b], dim=-1)`.",
    "concat_stack": "두 헤드의 출력을 새 축으로 쌓았습니다(stack). 마지막 축으로 이어 붙여 (L, 2 Dv)를 만드세요.",
    "packed_cross": "다른 시퀀스의 키를 막지 않았습니다. 이어 붙인(packing) 줄에서는 인과 마스크만으로는 앞 시퀀스의 "
    "토큰이 보입니다. 같은 시퀀스 안의 키만 허락하세요.",
    "packed_no_causal": "같은 시퀀스 안에서 미래 키를 막지 않았습니다. 시퀀스 안에서는 인과 마스크도 지켜야 합니다.",
    "future_diagonal": "대각선(자기 자신)까지 미래로 셌습니다. 쿼리 i에게 미래는 j > i인 키뿐입니다.",
    "temperature_mul": "점수를 온도 T로 나누지 않고 곱했습니다. `softmax(scores / T, dim=-1)`입니다.",
    "jacobian_sign": "야코비안의 부호나 항이 다릅니다. J = diag(p) - p p^T입니다(대각선은 p_i - p_i^2, 그 밖은 -p_i p_j).",
    "share_positions": "채점 위치 t >= 2만 평균하세요. t = 0에서는 첫 토큰이 자기 자신이고, t = 1에서는 첫 토큰과 "
    "이전 토큰이 같은 자리라 두 관계를 가를 수 없습니다.",
    "param_no_bias": "편향(bias)을 빼고 셌습니다. 선형층 네 개에 각각 E개의 편향이 있습니다.",
    "param_no_out": "출력 투영 W_o를 빼고 셌습니다. W_q, W_k, W_v, W_o 네 개입니다.",
    "cache_mask_topleft": "왼쪽 위에 맞춘 인과 마스크(`tril()`)입니다. 캐시에 S - L개가 있으면 새 쿼리 i는 전체에서 "
    "S - L + i번째 토큰이라 키 0..S-L+i를 봅니다: `tril(diagonal=S - L)`(오른쪽 아래에 맞춤).",
}
