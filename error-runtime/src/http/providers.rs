//! What the providers say and how, as data: the names of failures in their error bodies
//! (each specific or generic), the phrase families of their messages, Google's quota
//! reading, and the providers' rate-limit headers. The readers (`body`, `headers`, `json`,
//! `ratelimit`) hold no provider name of their own; `evidence` says in what order each
//! piece counts.

use super::kind::Kind;
#[cfg(feature = "recover")]
use super::ratelimit::{LimitFields, ResetForm};
#[cfg(feature = "recover")]
use crate::store::Dimension;

/// How much a name in an error body tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Weight {
    /// It names this one failure (`insufficient_quota`, `context_length_exceeded`): it wins
    /// over the message's phrases.
    Specific,
    /// It names a class of failures (`invalid_request_error`, `rate_limit_exceeded`,
    /// `api_error`, Google's `RESOURCE_EXHAUSTED`): the message's phrases say more.
    Generic,
}

/// Every name the providers give a failure in a body, wherever it stands (`error.code`,
/// `error.type`, a top-level `type` or `code`, Google's `error.status` and
/// `details[].reason`, TGI's `error_type`, AWS's `__type` and `x-amzn-ErrorType`, Azure's
/// `innererror.code`), with what it means and how much it tells. Names are matched exactly.
#[rustfmt::skip]
pub(super) const NAMES: &[(&str, Kind, Weight)] = &[
    // Money, credits, quotas and plans.
    ("insufficient_quota", Kind::BudgetExhausted, Weight::Specific),         // OpenAI
    ("billing_hard_limit_reached", Kind::BudgetExhausted, Weight::Specific), // OpenAI
    ("credit_balance_exhausted", Kind::BudgetExhausted, Weight::Specific),
    ("billing_error", Kind::BudgetExhausted, Weight::Specific),              // Anthropic
    ("insufficient_balance", Kind::BudgetExhausted, Weight::Specific),
    ("insufficient_credits", Kind::BudgetExhausted, Weight::Specific),
    ("budget_exceeded", Kind::BudgetExhausted, Weight::Specific),            // LiteLLM's proxy
    ("ServiceQuotaExceededException", Kind::BudgetExhausted, Weight::Specific), // AWS
    ("exceeded_current_quota_error", Kind::BudgetExhausted, Weight::Specific), // Moonshot
    ("Arrearage", Kind::BudgetExhausted, Weight::Specific),                  // Alibaba
    // A request too large to ever pass.
    ("request_too_large", Kind::RequestTooLarge, Weight::Specific),          // Anthropic's 413
    // The context window.
    ("context_length_exceeded", Kind::ContextOverflow, Weight::Specific),    // OpenAI
    ("model_context_window_exceeded", Kind::ContextOverflow, Weight::Specific),
    ("exceed_context_size_error", Kind::ContextOverflow, Weight::Specific),  // llama.cpp
    ("string_above_max_length", Kind::ContextOverflow, Weight::Specific),    // OpenAI
    // Content policies.
    ("content_filter", Kind::ContentFiltered, Weight::Specific),             // Azure
    ("content_policy_violation", Kind::ContentFiltered, Weight::Specific),   // OpenAI
    ("ResponsibleAIPolicyViolation", Kind::ContentFiltered, Weight::Specific), // Azure
    ("cyber_policy", Kind::ContentFiltered, Weight::Specific),
    ("bio_policy", Kind::ContentFiltered, Weight::Specific),
    ("data_inspection_failed", Kind::ContentFiltered, Weight::Specific),     // Alibaba
    ("DataInspectionFailed", Kind::ContentFiltered, Weight::Specific),       // Alibaba
    // Credentials.
    ("invalid_api_key", Kind::Auth, Weight::Specific),                       // OpenAI
    ("authentication_error", Kind::Auth, Weight::Specific),                  // Anthropic
    ("permission_error", Kind::Auth, Weight::Generic),                       // Anthropic
    ("API_KEY_INVALID", Kind::Auth, Weight::Specific),                       // Google's reason
    ("API_KEY_SERVICE_BLOCKED", Kind::Auth, Weight::Specific),               // Google's reason
    ("AccessDeniedException", Kind::Auth, Weight::Specific),                 // AWS
    ("UnrecognizedClientException", Kind::Auth, Weight::Specific),           // AWS
    ("ExpiredTokenException", Kind::Auth, Weight::Specific),                 // AWS
    ("unsupported_country_region_territory", Kind::Auth, Weight::Specific),  // OpenAI
    ("InvalidApiKey", Kind::Auth, Weight::Specific),                         // Alibaba
    ("organization_restricted", Kind::Auth, Weight::Specific),               // Groq
    ("UNAUTHENTICATED", Kind::Auth, Weight::Generic),                        // Google
    ("PERMISSION_DENIED", Kind::Auth, Weight::Generic),                      // Google
    // What does not exist.
    ("model_not_found", Kind::NotFound, Weight::Specific),                   // OpenAI
    ("model_decommissioned", Kind::NotFound, Weight::Specific),              // Groq
    ("invalid_model", Kind::NotFound, Weight::Specific),                     // Mistral, Perplexity
    ("UnknownOperationException", Kind::NotFound, Weight::Specific),         // AWS
    ("model_not_available", Kind::NotFound, Weight::Specific),               // Together
    ("dedicated_endpoint_not_running", Kind::NotFound, Weight::Specific),    // Together
    ("not_found_error", Kind::NotFound, Weight::Specific),                   // Anthropic
    ("DeploymentNotFound", Kind::NotFound, Weight::Specific),                // Azure
    ("ResourceNotFoundException", Kind::NotFound, Weight::Specific),         // AWS
    ("NOT_FOUND", Kind::NotFound, Weight::Generic),                          // Google
    ("NotFoundError", Kind::NotFound, Weight::Generic),                      // vLLM
    // Time.
    ("timeout_error", Kind::Timeout, Weight::Specific),                      // Anthropic
    ("ModelTimeoutException", Kind::Timeout, Weight::Specific),              // AWS
    ("DEADLINE_EXCEEDED", Kind::Timeout, Weight::Generic),                   // Google
    // Throttling.
    ("ThrottlingException", Kind::RateLimit, Weight::Specific),              // AWS
    ("TooManyRequestsException", Kind::RateLimit, Weight::Specific),         // AWS
    ("rate_limit_exceeded", Kind::RateLimit, Weight::Generic),               // OpenAI
    ("rate_limit_error", Kind::RateLimit, Weight::Generic),                  // Anthropic
    ("slow_down", Kind::RateLimit, Weight::Generic),
    ("too_many_requests", Kind::RateLimit, Weight::Generic),
    ("RESOURCE_EXHAUSTED", Kind::RateLimit, Weight::Generic),                // Google
    ("RateLimitError", Kind::RateLimit, Weight::Generic),                    // Python SDKs' names
    // The server's side.
    ("ServiceUnavailableException", Kind::Unavailable, Weight::Specific),    // AWS
    ("ModelNotReadyException", Kind::Unavailable, Weight::Specific),         // AWS
    ("InternalServerException", Kind::Unavailable, Weight::Specific),        // AWS
    ("ModelErrorException", Kind::Unavailable, Weight::Specific),            // AWS
    ("engine_overloaded_error", Kind::Unavailable, Weight::Specific),        // Moonshot
    ("generation", Kind::Unavailable, Weight::Specific),                     // TGI
    ("incomplete_generation", Kind::Unavailable, Weight::Specific),          // TGI
    ("overloaded", Kind::Unavailable, Weight::Specific),                     // TGI
    ("server_is_overloaded", Kind::Unavailable, Weight::Generic),
    ("overloaded_error", Kind::Unavailable, Weight::Generic),                // Anthropic
    ("api_error", Kind::Unavailable, Weight::Generic),
    ("server_error", Kind::Unavailable, Weight::Generic),                    // OpenAI
    ("UNAVAILABLE", Kind::Unavailable, Weight::Generic),                     // Google
    ("INTERNAL", Kind::Unavailable, Weight::Generic),                        // Google
    ("InternalServerError", Kind::Unavailable, Weight::Generic),             // vLLM
    // Bad requests.
    ("invalid_request_error", Kind::InvalidInput, Weight::Generic),
    ("INVALID_ARGUMENT", Kind::InvalidInput, Weight::Generic),               // Google
    ("FAILED_PRECONDITION", Kind::InvalidInput, Weight::Generic),            // Google
    ("validation", Kind::InvalidInput, Weight::Generic),                     // TGI
    ("ValidationException", Kind::InvalidInput, Weight::Generic),            // AWS
    ("BadRequestError", Kind::InvalidInput, Weight::Generic),                // vLLM
];

/// One word family: what it means, its name (shown as the evidence of a decision), and the
/// patterns that say it.
pub(super) struct Family {
    pub(super) kind: Kind,
    pub(super) name: &'static str,
    pub(super) patterns: &'static [&'static str],
}

/// The name of the family of a plan's or a quota's limit: what it says is a rate limit
/// instead when the text names a short window ([`SHORT_WINDOW`]), even in quotes (Google
/// names the quota's window in quotes: "Quota exceeded for quota metric 'Generate Content
/// API requests per minute'"), or asks to try again later ([`SOON`]) and names no long
/// period ([`LONG_PERIOD`]).
pub(super) const PLAN_LIMIT: &str = "plan limit";

/// The name of the family of the server's own load ("high demand", "at capacity").
pub(super) const HIGH_LOAD: &str = "high load";

/// The name of the family of a limit counted over a stretch of time the text does not name.
pub(super) const TIME_WINDOW: &str = "time window";

/// The name of the family of a short window (per minute, per second).
pub(super) const SHORT_FAMILY: &str = "short window";

/// The patterns of a short window: a limit that counts per minute or per second comes back
/// within a minute.
pub(super) const SHORT_WINDOW: &[&str] = &[
    "per_min*|per_sec*|perminute|persecond|rpm|tpm|rps|qps|tps|ipm",
    "每分钟",
    "每秒",
    "每分鐘",
    // Other languages: "per minute" and "per second".
    "por_minuto|por_segundo|par_minute|par_seconde|pro_minute|pro_sekunde|al_minuto|al_secondo",
    "毎分",
    "毎秒",
    "分あたり",
    "秒あたり",
    "분당",
    "초당",
    "в минуту",
    "в секунду",
];

/// The patterns of "soon": a limit whose message asks to try again later, and names no
/// long period, comes back within a retry's reach.
pub(super) const SOON: &[&str] = &[
    "try_again_later|retry_later|try_again_shortly|try_again_soon|wait_a_moment|slow_down",
    "稍后再试",
    "稍后重试",
    "稍後再試",
    "稍後重試",
    "más_tarde|mais_tarde|plus_tard|später|più_tardi",
    "しばらくして",
    "後でもう一度",
    "잠시 후",
    "나중에 다시",
    "позже",
];

/// The patterns of a long period: a limit counted per hour, day, week or month.
pub(super) const LONG_PERIOD: &[&str] = &[
    "day|days|daily|month|months|monthly|week|weeks|weekly|hour|hours|hourly|today|tomorrow",
    "每日",
    "每天",
    "每月",
    "每周",
    "小时",
    "小時",
    "今日",
    "明天",
    "día|días|diario|diaria|mes|mensual|semana|dia|dias|diário|diária|mês|mensal|jour|jours|quotidien*|journalier*|mois|mensuel*|semaine|tag|tage|täglich*|monat|monatlich*|woche|giorno|giornalier*|mese|mensile",
    "毎日",
    "毎月",
    "매일",
    "일일",
    "월간",
    "сутк",
    "день",
    "месяц",
    "недел",
];

/// The word families, one table for the words of messages and of names (a name is split
/// into words: `insufficient_user_quota`, `QuotaExhausted`, `AllocationQuota.FreeTierOnly`).
/// In order: the first family one of whose patterns matches decides.
///
/// A pattern is terms separated by ` ~ `, matched on words in order, at most two words
/// apart (six after ` ~~ `); a term lists alternatives separated by `|`; an alternative ending in `*` matches
/// every word it begins, and one joined by `_` matches consecutive words. A pattern that
/// starts with a letter outside ASCII is a phrase found anywhere in the text, its words
/// separated by one space (Chinese and Japanese write no spaces between words). Text in
/// quotes is never read.
#[rustfmt::skip]
pub(super) const FAMILIES: &[Family] = &[
    // Money: a balance, credits or a payment. Waiting does not help.
    Family { kind: Kind::BudgetExhausted, name: "money", patterns: &[
        "insufficient|inadequate|not_enough|no|low|negative|zero|exhausted|depleted|empty|no_remaining ~ balance|balances|credit|credits|fund|funds",
        "balance|balances|credit|credits|fund|funds ~~ insufficient|too_low|exhausted|depleted|not_enough|empty|negative|used_up|run_out|ran_out|is_zero",
        "out_of|run_out_of|ran_out_of|exhausted_your|used_all_your|used_up_your ~ credit|credits|fund|funds|balance",
        "billing|payment|subscription ~ not_active|inactive|expired|overdue|past_due|failed|required|suspended|hard_limit|not_set_up|disabled|needed|issue|problem",
        "payment_required|add_credit*|purchase_credit*|buy_credit*|buy_more|top_up|topup|recharge|arrears|arrearage|in_good_standing|overdue_payment|extra_usage|prepaid",
        "overdue|outstanding|unpaid ~ balance|payment|bill|bills|invoice*",
        "no|missing|requires ~ payment_method*|credit_card|card_on_file",
        "credits_error|credit_error|payment_error|paid_balance",
        "account ~ overdue|in_arrears|arrears",
        "budget ~ exceeded|exhausted|reached|spent|limit",
        "exceeded|exhausted|reached|over ~ budget|max_budget",
        "exceeded|exhausted|used_up|used_all|reached|depleted|spent ~~ credit|credits|allowance|balance",
        "exceededtokenbudget|credit_balance",
        "saldo|créditos|creditos|fondos ~ insuficiente*|agotado*|esgotado*",
        "insuficiente*|sin|sem ~ saldo|créditos|creditos|fondos",
        "solde|crédits|credits ~ insuffisant*|épuisé*",
        "guthaben|kontingent ~ aufgebraucht|nicht_ausreichend|unzureichend|erschöpft",
        "nicht_genügend|unzureichendes|kein ~ guthaben",
        "pago|pagamento|paiement|zahlung ~ requerido|pendiente|fallido|rechazado|pendente|falhou|recusado|requis|échoué|refusé|erforderlich|fehlgeschlagen|ausstehend|richiesto|fallito",
        "оплат", "пополните", "задолженност", "支払い", "결제", "충전",
        "недостаточно средств", "баланс",
        "余额", "餘額", "欠费", "欠費", "充值", "账户已停用", "额度不足", "額度不足", "配额不足", "配額不足",
        "额度已用", "額度已用", "额度用尽", "额度已耗尽", "额度已经用", "配额已用", "配額已用", "配额用尽",
        "已用尽", "已用盡", "残高", "クレジット", "잔액", "크레딧",
        "消费限额", "消費限額", "消费上限", "消費上限", "额度上限", "額度上限",
        "套餐已到期", "套餐已过期", "套餐已過期", "订阅已过期", "订阅已到期", "訂閱已過期", "续费", "續費", "续订", "續訂",
    ]},
    // High demand: the server is busy for everyone now, whatever else the message says of
    // the request (a "size allowed during peak load" is the load's, not the request's).
    Family { kind: Kind::Unavailable, name: HIGH_LOAD, patterns: &[
        "too_busy|high_demand|heavy_load|high_load|high_traffic|peak_load|experiencing_high|currently_experiencing",
        "over_capacity|at_capacity|no_capacity|insufficient_capacity|out_of_capacity",
        // The server's own capacity or concurrency, not the caller's rate: "throttled due to
        // system capacity limits", "service concurrency has reached its limit".
        "capacity ~ exceeded|reached|insufficient|limit|limits|constraints",
        "server|service|system|global|instance ~ concurrency|concurrent_requests ~ limit*|reached|exceeded|full|maximum",
        "服务并发", "服務並發", "系统并发", "系統並發", "服务器并发", "伺服器並發", "系统容量", "系統容量", "容量限制",
        "capacidad|capacidade|capacité|kapazität|capacità ~ del_sistema|do_sistema|du_système|du_serveur|des_systems|des_servers|del_servidor|do_servidor|del_sistema|excedida|agotada|esgotada|dépassée|erschöpft|überschritten|esaurita",
        "アクセスが集中", "混雑", "システムの容量", "사용량이 많", "요청이 많아", "시스템 용량", "мощност", "нагрузк",
    ]},
    // A request that alone exceeds a limit waiting cannot lift.
    Family { kind: Kind::RequestTooLarge, name: "too large", patterns: &[
        "request|payload|body|entity|file|image|upload|attachment|audio|document ~ too_large|too_big|is_too_large",
        "request|payload|body|file|image|upload ~ size ~ exceed*|limit|too|over|maximum",
        "exceed*|over|larger_than ~ maximum|max|allowed|limit ~ size|bytes|mb|kb|megabytes",
        "bytes|megabytes|mb ~ limit|exceed*|maximum",
        "image ~ exceed*", "too_many_images|too_many_files|too_many_tokens_in_batch",
        "tokens ~~ limited_to|is_limited_to",
        "at_most|up_to|maximum_of|no_more_than ~~ in_one_batch|per_batch|in_a_batch|in_a_single_batch",
        "batch_size|batch ~ exceed*|too_large|too_big|limit",
        "请求体过大", "请求过大", "文件过大", "图片过大", "大小超过", "超过大小", "請求過大", "檔案過大",
        "archivo|solicitud|petición|imagen|arquivo|solicitação|requisição|imagem|fichier|requête|image|datei|anfrage|bild|richiesta|immagine ~~ demasiado_grande|muito_grande|trop_volumineu*|trop_grand*|zu_groß|troppo_grand*",
        "大きすぎ", "너무 큽", "크기가 너무", "용량 초과", "слишком больш", "слишком велик", "превышает максимальный размер",
    ]},
    // A short window: a limit counted per minute or per second.
    Family { kind: Kind::RateLimit, name: SHORT_FAMILY, patterns: SHORT_WINDOW },
    // A plan's, a tier's or a quota's limit, spent for longer than a retry waits.
    Family { kind: Kind::BudgetExhausted, name: PLAN_LIMIT, patterns: &[
        "quota*|allocation* ~ exhaust*|insufficient|depleted|used_up|run_out|ran_out|spent|not_enough|no_remaining|exceeded|reached|limit|used|is_0|zero|empty",
        "exhaust*|insufficient|depleted|exceeded|no|out_of|reached|used_up ~ quota*|allocation*",
        "daily|monthly|weekly|hourly|per_day|per_month|per_week|per_hour|perday|permonth|rpd|tpd|day|month|week ~ limit*|quota*|cap|caps|allocation*|usage|allowance",
        "limit*|quota*|cap|allocation*|allowance ~ per_day|per_month|per_week|perday|day|month|week|hours",
        "usage_limit*|usage_cap*|spend*_limit*|spending_cap*|billing_limit*|billing_cap*|plan_limit*|tier_limit*|free_tier*|usage_quota",
        "reached|exceeded|hit ~ usage|plan|tier|subscription|inference|consumption|set|configured ~ limit*|cap*|quota*",
        // A plan's usage window (hours long): "Codex 账号用量窗口已达上限".
        "usage_window|usage_windows|ventana_de_uso|janela_de_uso|fenêtre_d_utilisation|nutzungsfenster|finestra_di_utilizzo",
        "用量窗口", "用量視窗", "使用量ウィンドウ", "사용량 창", "окно использования",
        "inference_limit*|consumption_limit*|límite_de_uso|limite_de_uso|limite_d_utilisation|nutzungslimit|limite_di_utilizzo",
        "推理限额", "推理限額", "消耗限额", "消耗限額", "推論上限", "추론 한도", "лимит инференса",
        "plan|tier|subscription ~ does_not_include|not_included|doesn_t_include|not_available|limit*|upgrade",
        "upgrade ~ plan|tier|subscription|account ~ to_continue|to_use|continue",
        "reached|exceeded|used ~ for_this_month|this_month|for_the_month|for_today|for_this_week|this_week|today",
        "free_models_per_day|calls_month",
        "tokens|requests|calls|messages ~ per_day|per_month|a_day|a_month|daily|monthly",
        "key_limit|total_limit|credit_limit|spend_limit|spending_limit|account_limit ~ exceeded|reached|hit",
        "cuota|cota|quota|kontingent|contingent ~ excedid*|agotad*|superad*|esgotad*|dépassé*|épuisé*|überschritten|aufgebraucht|erschöpft|superat*|esaurit*",
        "límite_diario|límite_mensual|limite_diário|limite_mensal|limite_quotidienne|limite_mensuelle|tageslimit|monatslimit|limite_giornaliero",
        "クォータ", "割り当て", "할당량", "사용 한도", "사용량 한도", "квот", "дневной лимит", "месячный лимит", "лимит исчерпан",
        "今日", "每日", "每天", "每月", "本月", "免费额度", "免费次数", "使用上限", "利用上限", "次数已用", "次數已用",
        "使用量已达", "用量已达", "使用量已達", "用量已達", "用量已用完",
        "用量上限", "用量限额", "用量限額", "使用限额", "使用限額", "利用限度", "лимит использования",
    ]},
    // A cap on what the model may write: the request asks for more than the model writes,
    // whatever its prompt (a bad parameter, not a long prompt).
    Family { kind: Kind::InvalidInput, name: "output cap", patterns: &[
        "maximum_output|max_output|maximum_completion|max_completion|output_limit|output_token_limit",
        "max_tokens|max_new_tokens|max_completion_tokens ~ must_be_greater_than|must_be_at_least|must_be_positive ~ 0|zero|1",
        // Above what the model writes at most: "max_tokens for … must be less than or equal
        // to 8000", "The maximum tokens you requested exceeds the model limit".
        "max_tokens|max_new_tokens|max_completion_tokens|max_output_tokens|maximum_tokens|max_tokens_to_sample ~ must_be_less_than|must_be_at_most|must_be_smaller_than|must_be_lower_than|cannot_exceed|can_not_exceed|must_not_exceed|should_not_exceed|should_be_less_than",
        "maximum_tokens|max_tokens|maximum_output_tokens|max_output_tokens ~ you_requested|requested ~ exceed*",
        "max_tokens|max_new_tokens|max_completion_tokens|max_output_tokens ~ 必须小于*|不能超过*|不能大于*|超过模型*|超出模型*|超过最大*|超出最大*",
        "max_tokens|max_new_tokens|max_completion_tokens|max_output_tokens ~ debe_ser_menor|deve_ser_menor|doit_être_inférieur|muss_kleiner|deve_essere_minore|no_puede_superar|não_pode_exceder|ne_peut_pas_dépasser|darf_nicht_überschreiten",
    ]},
    // The context window, in every provider's words.
    Family { kind: Kind::ContextOverflow, name: "context window", patterns: &[
        "context ~ length|window|size|limit|tokens ~ exceed*|too|over|maximum|limit|reached",
        "exceed*|over|beyond|maximum|max|longer_than|greater_than|larger_than|more_than|fit ~ context*",
        "context ~ overflow*|exceed*|too_small|full",
        "tokens ~ must_be",
        "context_length_exceeded|context_window_exceeded|ctx_size|n_ctx|num_ctx|prompt_limit|prompt_too_long",
        "context_length|context_window|context_size|context_limit",
        "prompt|input|message|messages|conversation ~ too_long|is_too_long|are_too_long|too_large|too_many_tokens|exceeds",
        "maximum|max ~ prompt_length|input_length|sequence_length|model_length|context|tokens_allowed|number_of_tokens|token_limit",
        "input_token_count|token_count ~ exceed*",
        "too_many ~ tokens|input_tokens",
        // A prompt held under a count of tokens: "`inputs` must have less than 4096 tokens".
        "less_than|fewer_than|no_more_than|menos_de|menos_que|moins_de|weniger_als|meno_di ~ tokens|token",
        "个token以内", "個token以內", "トークン未満", "토큰 미만",
        "tokens|token_limit ~ exceed*|exceeded|over_the_limit",
        "exceeded ~ model ~ token_limit",
        "reduce ~ length|prompt|messages|input",
        "range_of_input_length|max_new_tokens_must_be|budget_tokens|input_too_large|inputs_tokens",
        "上下文", "过长", "過長", "超长", "超長", "长度超过", "長度超過", "超出模型", "超过模型", "最大长度", "最大長度", "token数", "tokens超",
        "contexto|contexte|kontext|kontextfenster|contesto ~ excede*|supera*|dépass*|überschreit*|überschritten|máximo|maximum|maximale*|límite|limite|demasiado|trop|zu_lang|longitud|longueur|länge|lunghezza|tamaño|taille",
        "excede*|supera*|dépass*|überschreit*|eccede*|ultrapassa* ~~ contexto|contexte|kontext*|contesto",
        "mensaje|mensajes|mensagem|mensagens|entrada|texto|texte|eingabe|nachricht|prompt ~~ demasiado_larg*|muito_long*|trop_long*|zu_lang|troppo_lung*",
        "コンテキスト", "入力が長すぎ", "プロンプトが長すぎ", "컨텍스트", "입력이 너무 길", "контекст", "слишком длин",
    ]},
    // Content policies and moderation.
    Family { kind: Kind::ContentFiltered, name: "content policy", patterns: &[
        "content ~ policy|policies|filter*|management|blocked|moderation|safety|violat*|flagged|inspection|risk|rejected|not_allowed",
        "request|prompt|input|message ~ blocked|was_blocked|has_been_blocked",
        "safety ~ system|filter*|policy|policies|settings|reasons|check*",
        "moderation*|guardrail*|flagged|inappropriate|harmful|objectionable|responsible_ai|usage_policies",
        "prohibited ~ content|material|text|image|request_content",
        // Content the service will not make: "Your prompt contains content we can't generate".
        "content ~~ can_t|cannot|can_not|unable_to|not_able_to|won_t|will_not ~ generate|produce|create|depict|render",
        "unsafe ~ generation|generations|content|prompt|image|images|output|request",
        "contenido|conteúdo|contenu|inhalt|inhalte|contenuto ~~ no_podemos|no_se_puede|não_podemos|não_pode|ne_pouvons_pas|ne_peut_pas|nicht|non_possiamo|non_può ~~ generar|gerar|générer|generieren|erzeugen|erstellen|generare|generato|gerado|généré|generado",
        "无法生成该内容", "无法生成此内容", "无法生成这类内容", "無法生成該內容", "無法生成此內容", "生成できない内容", "生成できないコンテンツ", "생성할 수 없는 콘텐츠", "생성할 수 없는 내용", "не можем сгенерировать", "невозможно сгенерировать",
        "considered_high_risk|high_risk|data_inspection", "sensitive ~ content|words|information",
        "敏感", "违规", "違規", "内容安全", "內容安全", "不安全", "审核", "審核", "违禁", "違禁", "不合规", "风险", "風險",
        "合规问题", "合規問題", "阻止生成", "被拦截", "被攔截", "已拦截", "已攔截",
        "contenido|conteúdo|contenu|inhalt|inhalte|contenuto ~ inapropiado|impróprio|inadequado|inapproprié|unangemessen|inappropriato|bloqueado|bloqué|blockiert|bloccato|prohibido|proibido|interdit|verboten|vietato|sensible|sensível|sensibile",
        "viola|violación|violação|viole|violent|verstößt|verstoß|violazione ~~ política*|politique*|richtlinie*|norma*|regla*|regras|règles",
        "不適切", "ポリシー違反", "ポリシーに違反", "부적절", "정책 위반", "정책에 위반", "유해", "нарушение политики", "нарушает", "неприемлем",
    ]},
    // What the request asks of the model that no endpoint of it supports (tools, images, a
    // `tool_choice`): the request or the model must change, whatever the status says.
    Family { kind: Kind::InvalidInput, name: "unsupported feature", patterns: &[
        "no ~ endpoints|endpoint|providers|provider|deployments|backends ~~ support|supports|supporting|that_support",
        "not_support|does_not_support|doesn_t_support|do_not_support|don_t_support|no_support_for|unsupported ~ tool|tools|tool_use|tool_calls|tool_calling|tool_choice|function_call*|function_calling|functions|image|images|image_input|vision|audio|video|multimodal|streaming|json_mode|response_format|structured_output*|logprobs",
        "tool|tools|tool_use|tool_calls|tool_calling|tool_choice|function_call*|function_calling|image_input|vision|json_mode|response_format|structured_output* ~ not_supported|is_not_supported|are_not_supported|unsupported",
        "no_admite|no_soporta|não_suporta|não_oferece_suporte|ne_prend_pas_en_charge|ne_supporte_pas|unterstützt_kein*|unterstützt_nicht|non_supporta ~~ herramientas|ferramentas|outils|werkzeuge|strumenti|tools|imágenes|imagens|images|bilder|immagini|funciones|funções|fonctions|funktionen|funzioni",
        "不支持工具", "不支援工具", "不支持函数调用", "不支援函數呼叫", "不支持图片", "不支持图像", "不支援圖片", "不支持视觉", "不支持多模态",
        "ツールをサポートしていません", "画像をサポートしていません", "도구를 지원하지", "이미지를 지원하지", "не поддерживает инструмент", "не поддерживает изображен",
    ]},
    // A token of text (a prompt given as token ids), not a credential's token.
    Family { kind: Kind::InvalidInput, name: "text tokens", patterns: &[
        "invalid|unknown|illegal|bad ~ token_in_prompt|token_in_the_prompt|token_in_input|token_id|token_ids",
        "token_id|token_ids ~~ out_of_range|out_of_vocab*|vocab*|exceed*|must_be|invalid",
        "out_of_vocab*",
    ]},
    // A gateway's own pool of upstream keys, all cooling down or blocked for now: the
    // gateway's outage, not the caller's credential ("No active API keys available for
    // this group", `NO_KEYS_AVAILABLE`).
    Family { kind: Kind::Unavailable, name: "key pool", patterns: &[
        "no_active|no_available|no_usable|no_healthy|no_remaining ~ api_key*|apikey*|keys|key|accounts|credentials",
        "no ~ api_keys|apikeys|keys|accounts|auth|credential*|auths ~ available|left|remaining|usable",
        // The proxy's credentials cooling down after upstream errors, or its auth service
        // out of reach: `auth_unavailable`, "check … cooldown state".
        "auth|authentication|credential*|keys|accounts ~ unavailable|cooling_down|in_cooldown|cooldown",
        "all ~ api_keys|apikeys|keys|accounts|credentials ~~ exhausted|unavailable|rate_limited|blacklisted|cooling_down|in_cooldown|busy",
        "key_pool|keypool|account_pool|accountpool",
        "账号池", "帳號池", "账户池", "帳戶池", "无可用账号", "無可用帳號", "暂无可用账号", "暫無可用帳號", "没有可用账号", "没有可用的账号", "沒有可用帳號", "沒有可用的帳號",
        "利用可能なアカウントがありません", "사용 가능한 계정이 없", "нет доступных аккаунтов", "нет доступных учетных записей",
        "无可用密钥", "无可用的密钥", "没有可用的密钥", "没有可用密钥", "無可用金鑰", "沒有可用的金鑰", "沒有可用金鑰", "无可用key", "无可用的key", "没有可用的key", "密钥池", "金鑰池",
        "利用可能なキーがありません", "利用可能なapiキーがありません", "사용 가능한 키가 없", "사용 가능한 api 키가 없", "нет доступных ключей", "нет активных ключей", "нет доступных api ключей",
        "no_hay_claves|ninguna_clave|nenhuma_chave|aucune_clé|keine_verfügbaren_schlüssel|keine_aktiven_schlüssel|nessuna_chiave|no_hay_cuentas|ninguna_cuenta|nenhuma_conta|aucun_compte|keine_verfügbaren_konten|nessun_account ~ disponible*|activa*|disponível|ativa|active|disponibile|attiva",
    ]},
    // Who may call at all: a person must act.
    Family { kind: Kind::Auth, name: "credentials", patterns: &[
        "invalid|incorrect|missing|expired|revoked|disabled|wrong|bad|unknown|no|malformed ~ api_key*|apikey*|access_key|secret_key|api_token|access_token|auth_token|bearer*|credential*|authorization|authentication|auth",
        // A key of the wrong kind, or one without the permission the call needs.
        "key_type|token_type|type_of_key|kind_of_key|session_key",
        // A credential the server could not read, and "sign in again".
        "could_not_parse|cannot_parse|failed_to_parse|unable_to_parse|could_not_decode|failed_to_decode|could_not_verify|failed_to_verify|unable_to_verify|could_not_validate|failed_to_validate ~ api_key*|apikey*|access_key|secret_key|api_token|access_token|auth_token|authentication|authorization|bearer*|credential*|jwt|id_token",
        "sign_in_again|signing_in_again|log_in_again|logging_in_again|login_again|re_login|relogin|re_authenticate|reauthenticate",
        "inicia_sesión_de_nuevo|vuelve_a_iniciar_sesión|inicie_sesión_nuevamente|faça_login_novamente|reconnectez_vous|connectez_vous_à_nouveau|erneut_anmelden|melden_sie_sich_erneut_an|accedi_di_nuovo",
        "再度ログイン", "もう一度ログイン", "再ログイン", "다시 로그인", "войдите снова", "войдите заново", "повторно войдите", "авторизуйтесь заново", "авторизуйтесь снова",
        "insufficient|missing|lack|lacks|lacking|not_enough ~ permission*|scope*|privilege*",
        // A caller not allowed what it asks: "Project … is not allowed to use Publisher Model …".
        "not_allowed|not_permitted|isn_t_allowed|isn_t_permitted ~ to_use|to_access|access_to",
        "no_tiene_permitido|no_está_permitido_usar|não_tem_permissão_para|não_é_permitido_usar|n_est_pas_autorisé_à|pas_autorisé_à_utiliser|darf_nicht_verwenden|nicht_berechtigt_zu|non_è_autorizzato_a|non_ha_il_permesso",
        "不允许使用", "不允許使用", "不允许访问", "不允許訪問", "使用が許可されていません", "アクセスが許可されていません", "사용이 허용되지 않", "접근이 허용되지 않", "не разрешено использовать", "запрещено использовать",
        "permisos_insuficientes|permissões_insuficientes|permissions_insuffisantes|unzureichende_berechtigung*|permessi_insufficienti|sin_permiso*|sem_permissão|keine_berechtigung|fehlende_berechtigung*",
        "権限が不足", "권한이 부족", "недостаточно прав", "нет прав",
        "api_key*|apikey*|access_key|secret_key|api_token|access_token|auth_token|credential*|authorization ~ invalid|incorrect|missing|expired|revoked|not_valid|is_invalid|required|not_provided",
        "unauthori*|unauthenticated|not_authori*|authentication_failed|authentication_error|auth_failed|auth_failure|authfailure|access_denied|permission_denied|no_permission",
        "invalid_client|unauthorized_client|invalid_grant|invalid_token|expired_token",
        "signature ~ failure|invalid|mismatch|does_not_match|not_match|expired",
        "credential* ~~ could_not_be_validated|not_valid|invalid|rejected",
        "security_token|session_token|access_token|auth_token|api_token|bearer_token ~~ invalid|expired|not_valid|rejected",
        "token ~ missing|is_missing|expired|is_expired|has_expired|invalid|is_invalid|not_provided",
        "invalid|missing|expired ~ token",
        "account ~ locked|frozen|banned|suspended",
        "access ~ terminated|revoked|suspended|blocked|disabled|was_terminated|has_been_terminated|has_been_revoked",
        "organization|account|project|key ~ disabled|deactivated|suspended|banned|restricted|blocked",
        "location|region|country|territory ~ not_supported|unsupported|not_available",
        "令牌", "認證", "重新登录", "重新登錄", "重新登入", "已被锁定", "已被鎖定", "被封禁", "已被禁用", "已被停用", "认证失败", "鉴权", "鑑權", "身份验证", "未授权", "未授權", "无权", "無權", "权限不足", "權限不足", "密钥", "密鑰", "签名", "簽名",
        "clave|chave|clé|schlüssel|chiave|token|credenciales|credenciais|identifiants|anmeldedaten|credenziali ~ inválid*|incorrect*|no_válid*|invalide*|ungültig*|falsch*|non_valid*|expirad*|expiré*|abgelaufen*|scadut*",
        "ungültig* ~ api|schlüssel|token|anmeldedaten",
        "no_autorizado|não_autorizado|non_autorisé|nicht_autorisiert|non_autorizzato|sin_autorización|nicht_berechtigt|acceso_denegado|acesso_negado|accès_refusé|zugriff_verweigert|accesso_negato",
        "認証", "権限がありません", "アクセスが拒否", "アクセス拒否", "無効なapiキー", "キーが無効",
        "인증", "권한이 없", "키가 유효하지", "유효하지 않은 키",
        "неверный ключ", "недействительный ключ", "неверный api", "недействительный токен", "неверный токен", "ошибка авторизации", "ошибка аутентификации", "не авторизован", "доступ запрещ",
    ]},
    // What does not exist.
    Family { kind: Kind::NotFound, name: "not found", patterns: &[
        "model|deployment|endpoint|resource|version ~ not_found|does_not_exist|not_exist|doesn_t_exist|not_exists|unknown|decommissioned|retired|deprecated|discontinued",
        "no_such|unknown|nonexistent ~ model|deployment|endpoint|version",
        // A model named unquoted between the noun and the verb ("The model gpt-4o-mini-2024-07-18 does not exist").
        "model|deployment|endpoint|modelo|modèle|modell|modello ~~ does_not_exist|doesn_t_exist|not_exist|not_exists|no_existe|não_existe|existe_pas|existiert_nicht|non_esiste",
        "не существует", "存在しません", "존재하지 않",
        "could_not_route|no_route|route_not_found|no_route_matched|unknown_endpoint|endpoint_not_found",
        "price|pricing|ratio ~ not_set|is_not_set|not_configured|is_not_configured",
        "价格未配置", "倍率或价格未配置", "倍率未配置", "價格未配置",
        "decommissioned|identifier_is_invalid",
        "invalid_model_name|not_a_valid_model|unknown_model|unsupported_model",
        // A model name the server does not know: "Invalid model 'sonar-small-online'",
        // "Invalid model id" (not what a model's parameters are).
        "invalid_model|invalid_model_id|invalid_model_identifier|model_is_invalid|model_id_is_invalid|model_name_is_invalid",
        "modelo_inválido|modelo_no_válido|modelo_não_válido|modèle_invalide|modèle_non_valide|ungültiges_modell|modello_non_valido",
        "无效的模型", "無效的模型", "模型无效", "模型無效", "模型名称无效", "模型名稱無效", "無効なモデル", "잘못된 모델", "유효하지 않은 모델", "недопустимая модель", "неверная модель", "неверное имя модели",
        // OpenAI's words, which others copy: "The model or endpoint doubao-embedding-large-text-240915
        // does not exist or you do not have access to it" (a long name stands between).
        "does_not_exist_or_you_do_not_have_access|does_not_exist_or_you_don_t_have_access|does_not_exist_or_you_have_no_access",
        "model ~~ not_supported|is_not_supported|isn_t_supported|is_unsupported|not_recognized|not_recognised",
        "模型不存在", "不存在该模型", "找不到模型", "未找到模型", "模型未找到", "无此模型", "模型已下线", "模型不存在", "不存在", "找不到",
        "modelo|modèle|modell|modello ~ no_encontrado|não_encontrado|introuvable|nicht_gefunden|non_trovato|no_existe|não_existe|existe_pas|existiert_nicht|inexistente|desconocido|desconhecido|inconnu|unbekannt|sconosciuto",
        "モデルが見つかりません", "存在しないモデル", "モデルが存在しません", "모델을 찾을 수 없", "존재하지 않는 모델", "모델이 존재하지 않", "модель не найдена", "модель не существует", "неизвестная модель",
    ]},
    // Throttling, said in words.
    Family { kind: Kind::RateLimit, name: "rate limit", patterns: &[
        "rate ~ limit*", "ratelimit*|rate_limited|throttl*|slow_down",
        "too_many ~ requests|calls|concurrent|connections",
        // A limit of requests in flight: waiting for them to finish helps.
        "limit|limits|maximum|max ~ concurren*|simultaneous|parallel_requests|in_flight",
        "concurren*|simultaneous|parallel ~ request*|connection*|call* ~ limit*|exceed*|reached",
        "solicitudes|peticiones|requisições|solicitações|requêtes|richieste ~ simultáne*|simultâne*|simultané*|concurrent*|concorrent*|simultane*",
        "gleichzeitige*|parallele ~ anfragen|anforderungen",
        "同時リクエスト", "同時接続数", "同時実行数", "동시 요청", "동시 접속", "одновременных запросов", "параллельных запросов",
        "requests|request|calls ~ too_frequent*|too_fast|too_often|too_quickly|too_rapidly|exceed*_limit",
        // A request rate that grows too fast: "Request rate increased too quickly".
        "solicitudes|peticiones|requisições|solicitações|requêtes|anfragen|richieste ~ demasiado_rápid*|muito_rápid*|trop_rapide*|zu_schnell|troppo_rapid*|troppo_velocemente",
        "请求速度过快", "請求速度過快", "请求增长过快", "請求增長過快", "リクエストの増加が速すぎ", "リクエストが速すぎ", "요청 속도", "запросы слишком быстро", "слишком быстро",
        "already_in_progress|another_request_is_in_progress|request_in_progress|already_being_processed|still_being_processed",
        "正在输出", "正在輸出", "正在处理中", "正在處理中",
        "frequency ~ limit*|exceeded", "request_limit ~ exceeded|reached",
        "请求过于频繁", "請求過於頻繁", "频繁", "頻繁", "频率", "頻率", "限流", "速率", "并发", "並發", "请求过多", "請求過多", "请求次数", "レート制限", "リクエストが多すぎ", "요청이 너무 많",
        "слишком много запросов", "demasiadas_solicitudes", "muitas_requisições|muitas_solicitações",
        "demasiadas|muitas|trop_de|zu_viele|troppe ~ solicitudes|peticiones|consultas|requisições|solicitações|requêtes|demandes|anfragen|anforderungen|richieste",
        "límite|limite ~ de_solicitudes|de_peticiones|de_velocidad|de_taxa|de_requisições|de_requêtes|de_débit|di_richieste",
        "ratenbegrenzung|anfragelimit|anfragenlimit",
        "レートリミット", "リクエスト制限", "リクエスト数", "요청 한도", "속도 제한", "처리율 제한", "요청 수", "лимит запросов", "частоты запросов", "слишком часто",
    ]},
    // A deadline passed.
    Family { kind: Kind::Timeout, name: "timeout", patterns: &[
        "timed_out|deadline_exceeded|took_too_long|time_limit_exceeded|etimedout|esockettimedout",
        "timeout ~ error|exceeded|occurred|expired",
        "request|gateway|upstream|connection|read|response|server|function|invocation|execution|processing|inference|idle|socket|task|job ~ timeout",
        "a_timeout_occurred",
        "超时", "超時", "逾時",
        "tiempo_de_espera|tempo_de_espera|délai_d_attente|tempo_limite|délai|zeitlimit|tempo ~ agotado|esgotado|dépassé|expiré|excedido|überschritten|scaduto|superato",
        "se_agotó_el_tiempo|zeitüberschreitung|timeout_scaduto",
        "タイムアウト", "時間切れ", "시간 초과", "타임아웃", "시간이 초과", "тайм аут", "таймаут", "время ожидания", "истекло время",
    ]},
    // The server failed, is overloaded or cannot take the call now.
    Family { kind: Kind::Unavailable, name: "overload", patterns: &[
        "overload*",
        "temporarily|currently ~ unavailable|overloaded|busy|down|unable|not_available",
        "service|server|model|upstream|backend|endpoint|engine|provider|deployment|instance ~ unavailable|busy|overloaded|down|not_available|not_ready|loading|starting",
        "internal ~ error|server_error", "server_had_an_error|bad_gateway|service_unavailable|no_healthy_upstream",
        "upstream ~ error|failed|unavailable|connect|reset",
        "no_available|no_healthy ~ channel*|server*|backend*|replica*|instance*|worker*|provider*",
        "currently_loading|is_loading|model_busy|failed_to_generate|incomplete_generation",
        "getaddrinfo|eai_again|enotfound|econnrefused|econnreset|ehostunreach|enetunreach|socket_hang_up|connection_refused|connection_reset|broken_pipe",
        "failed_to_get_response|no_response_from|compute_error|cuda_error|out_of_memory",
        // The server behind a proxy could not be reached: "dial tcp …: connectex: No
        // connection could be made because the target machine actively refused it".
        "dial_tcp|dial_udp|connectex|actively_refused|no_connection_could_be_made|could_not_connect|couldn_t_connect|failed_to_connect|unable_to_connect|cannot_connect|can_not_connect|connection_failed|connection_error",
        "连接被拒绝", "連接被拒絕", "連線被拒", "拒绝连接", "拒絕連接", "无法连接", "無法連接", "無法連線", "连接失败", "連接失敗", "連線失敗",
        "接続が拒否", "接続できません", "接続に失敗", "연결이 거부", "연결할 수 없", "연결 실패", "соединение отклонено", "отказано в подключении", "не удалось подключиться", "ошибка соединения", "ошибка подключения",
        "no_se_pudo_conectar|conexión_rechazada|error_de_conexión|não_foi_possível_conectar|conexão_recusada|erro_de_conexão|impossible_de_se_connecter|connexion_refusée|échec_de_la_connexion|verbindung_abgelehnt|verbindung_fehlgeschlagen|verbindungsfehler|connessione_rifiutata|impossibile_connettersi|errore_di_connessione",
        // The server crashed on the call.
        "panic|panicked|panic_detected|segmentation_fault|segfault|server_crashed|worker_crashed|process_crashed",
        "崩溃", "崩潰", "クラッシュ", "аварийно",
        "error_was_encountered_while_running_the_model|unable_to_process_your_request|try_your_request_again",
        "负载", "負載", "饱和", "飽和", "繁忙", "过载", "過載", "服务不可用", "服務不可用", "暂时不可用", "暫時無法", "服务异常", "服務異常",
        "系统异常", "系統異常", "服务器异常", "伺服器異常", "内部异常", "上游", "无可用", "無可用", "没有可用", "沒有可用", "内部错误", "內部錯誤", "系统错误", "系統錯誤", "稍后再试", "稍后重试", "稍後再試", "稍後重試",
        "sobrecargad*|sobrecarregad*|surcharg*|sovraccaric*|überlast*",
        "temporalmente|temporariamente|temporairement|vorübergehend|temporaneamente|servicio|serviço|service|dienst|servizio|servidor|serveur ~ no_disponible|indisponible|indisponível|nicht_verfügbar|non_disponibile|fuera_de_servicio|ocupado|occupé|ausgelastet|occupato",
        "error_interno|erro_interno|erreur_interne|interner_fehler|errore_interno|interner_serverfehler|error_del_servidor|erro_do_servidor|erreur_du_serveur|serverfehler",
        "過負荷", "一時的に", "サーバーエラー", "内部エラー", "과부하", "일시적", "서버 오류", "내부 오류",
        "перегруж", "временно недоступ", "сервис недоступ", "сервер недоступ", "внутренняя ошибка", "ошибка сервера",
    ]},
    // A parameter the server does not support, whatever status it is sent with.
    Family { kind: Kind::InvalidInput, name: "bad request", patterns: &[
        "unsupported ~ param*|parameter*",
        "invalid|bad|wrong|missing|malformed|illegal ~ param*|parameter*|argument*|field|fields|request_body",
        "param*|parameter*|argument* ~ invalid|error|missing|is_invalid|are_invalid|not_valid|illegal|is_illegal",
        // A request the server could not decode into its types: Go's "json: cannot
        // unmarshal object into Go struct field ChatRequest.messages …", axum's "Failed to
        // deserialize the JSON body into the target type". A relay that could not decode its
        // upstream's response ("… into Go struct field DetailResponse.detail") is not one.
        "cannot_unmarshal|unable_to_unmarshal|failed_to_unmarshal ~~ struct_field|go_value ~~ request|requests|messages|prompt|tools|tool_choice|input",
        "cannot_deserialize|unable_to_deserialize|failed_to_deserialize|could_not_deserialize ~~ request|request_body|json_body|messages|target_type",
        "bad_request|invalid_request|malformed_request|is_required|are_required|must_not_be_empty|cannot_be_empty|can_not_be_empty|must_be_provided|missing_required",
        "error_parsing|parse_error|failed_to_parse|could_not_parse|cannot_parse|unable_to_parse ~ input|request|json|body",
        "参数错误", "參數錯誤", "参数有误", "參數有誤", "参数不合法", "参数无效", "不能为空", "不能為空",
        "参数非法", "參數非法", "非法参数", "非法參數", "非法请求", "非法請求", "请求非法", "請求非法", "不正な引数", "잘못된 매개변수",
        "请求有误", "請求有誤", "请求格式错误", "請求格式錯誤", "请求不合法", "請求不合法",
        "无效请求", "無效請求", "无效的请求", "無效的請求", "無効なリクエスト", "유효하지 않은 요청", "недопустимый запрос",
        // Messages out of the order the API takes: "roles must alternate between user and
        // assistant", "user or tool message(s) should alternate with assistant message(s)".
        "must|should|need_to|needs_to|has_to|have_to ~ alternate|alternating|alternated",
        "alternate_between|alternates_between|alternating_between|alternate_with|alternating_with ~~ user|users|assistant|model|roles",
        "deben_alternar*|debe_alternar*|devem_alternar*|deve_alternar*|doivent_alterner|doit_alterner|abwechseln_müssen|müssen_sich_abwechseln|devono_alternare|deve_alternare",
        "必须交替", "必須交替", "需要交替", "应当交替", "應當交替", "交互に", "번갈아", "чередоваться", "должны чередоваться",
        "parámetro|parámetros|parâmetro|parâmetros|paramètre|paramètres|parameter|parametro|parametri ~ inválid*|no_válid*|invalide*|ungültig*|non_valid*|faltante|obligatorio|obrigatório|manquant*|fehlt|mancante",
        "solicitud_inválida|petición_inválida|requisição_inválida|solicitação_inválida|requête_invalide|ungültige_anfrage|richiesta_non_valida",
        "パラメータ", "不正なリクエスト", "잘못된 요청", "매개변수", "파라미터", "неверный параметр", "неверный запрос", "некорректный запрос",
    ]},
    // A limit counted over a stretch of time the text does not name ("the maximum number
    // of tokens allowed within a given time frame"), or one the text asks to wait out
    // ("Too many tokens, please wait before trying again"): it comes back when the window
    // moves on. Last, so that every other family speaks first; it outweighs the words of a
    // context window (a token limit said so is a rate limit).
    Family { kind: Kind::RateLimit, name: TIME_WINDOW, patterns: &[
        "allowed|limit*|exceed*|maximum|max|too_many|quota* ~~ time_frame|timeframe|time_window|time_period|period_of_time|rolling_window|sliding_window",
        "wait ~~ before_trying_again|before_retrying|before_sending|and_try_again|and_retry|then_retry|then_try_again",
        "limit*|límite|máximo|maximum|maximal*|massimo|excedid*|superad*|dépassé*|überschritten|permitid*|autorisé*|erlaubt*|consentit* ~~ período_de_tiempo|periodo_de_tiempo|intervalo_de_tiempo|ventana_de_tiempo|período_de_tempo|intervalo_de_tempo|janela_de_tempo|période_de_temps|laps_de_temps|intervalle_de_temps|zeitraum|zeitfenster|zeitintervall|periodo_di_tempo|intervallo_di_tempo|finestra_temporale",
        "espere|aguarde|attendez|warten_sie|attendi ~~ intentar*|volver_a_intentar|reintentar|tentar_novamente|réessayer|erneut_versuchen|riprovare",
        "单位时间内", "單位時間內", "时间窗口内", "時間窗口內", "一定時間内", "単位時間あたり", "待ってから再試行", "단위 시간당", "일정 시간 내", "기다린 후 다시", "за единицу времени", "промежуток времени", "подождите и повторите",
    ]},
];

/// Google's quota reading: a `QuotaFailure` whose `quotaId` counts per day is a plan's
/// limit, spent until the next day; so is a free tier whose limit is 0 (the model is not in
/// the plan at all). A per-minute quota is a rate limit.
pub(super) const DAILY_QUOTA: &str = "perday";
/// Google's message for a quota whose limit is 0 (the plan does not include it).
pub(super) const ZERO_LIMIT: &str = "limit: 0";
/// Google's status for a call the server cancelled (code 499).
pub(super) const CANCELLED: &str = "CANCELLED";
/// Google's message naming the quota that was exceeded.
pub(super) const QUOTA_METRIC: &str = "quota exceeded for metric";
/// Google's message naming an exceeded quota by its service's metric.
pub(super) const QUOTA_FOR: &str = "quota exceeded for ";
/// The host part of the metric of a Google service (`aiplatform.googleapis.com/…`).
pub(super) const GOOGLE_API_HOST: &str = ".googleapis.com/";

/// The `@type` suffix of Google's `RetryInfo` error detail.
pub(super) const RETRY_INFO: &str = "google.rpc.RetryInfo";

/// OpenAI's two limits, each with the header saying what is left and the one saying when
/// it refills.
pub(super) const RATE_LIMITS: [(&str, &str); 2] = [
    (
        "x-ratelimit-remaining-requests",
        "x-ratelimit-reset-requests",
    ),
    ("x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"),
];

/// The rate-limit fields that name what they count, each limit with its capacity, what
/// remains and its reset: OpenAI's (Groq, vLLM and Azure use the same names), Anthropic's,
/// and the unsuffixed `x-ratelimit-*` of OpenRouter and GitHub-style APIs.
#[cfg(feature = "recover")]
pub(super) const LIMIT_FIELDS: [LimitFields; 7] = [
    LimitFields {
        dimension: Dimension::Requests,
        limit: "x-ratelimit-limit-requests",
        remaining: "x-ratelimit-remaining-requests",
        reset: "x-ratelimit-reset-requests",
        reset_form: ResetForm::GoDuration,
        window: false,
    },
    LimitFields {
        dimension: Dimension::Tokens,
        limit: "x-ratelimit-limit-tokens",
        remaining: "x-ratelimit-remaining-tokens",
        reset: "x-ratelimit-reset-tokens",
        reset_form: ResetForm::GoDuration,
        window: false,
    },
    LimitFields {
        dimension: Dimension::Requests,
        limit: "anthropic-ratelimit-requests-limit",
        remaining: "anthropic-ratelimit-requests-remaining",
        reset: "anthropic-ratelimit-requests-reset",
        reset_form: ResetForm::Rfc3339,
        window: false,
    },
    LimitFields {
        dimension: Dimension::Tokens,
        limit: "anthropic-ratelimit-tokens-limit",
        remaining: "anthropic-ratelimit-tokens-remaining",
        reset: "anthropic-ratelimit-tokens-reset",
        reset_form: ResetForm::Rfc3339,
        window: false,
    },
    LimitFields {
        dimension: Dimension::InputTokens,
        limit: "anthropic-ratelimit-input-tokens-limit",
        remaining: "anthropic-ratelimit-input-tokens-remaining",
        reset: "anthropic-ratelimit-input-tokens-reset",
        reset_form: ResetForm::Rfc3339,
        window: false,
    },
    LimitFields {
        dimension: Dimension::OutputTokens,
        limit: "anthropic-ratelimit-output-tokens-limit",
        remaining: "anthropic-ratelimit-output-tokens-remaining",
        reset: "anthropic-ratelimit-output-tokens-reset",
        reset_form: ResetForm::Rfc3339,
        window: false,
    },
    LimitFields {
        dimension: Dimension::Requests,
        limit: "x-ratelimit-limit",
        remaining: "x-ratelimit-remaining",
        reset: "x-ratelimit-reset",
        reset_form: ResetForm::EpochOrDelta,
        window: true,
    },
];
