//! Word lists for generated data, and the names that test clients: CSV quoting, formula
//! injection, line breaks, scripts other than Latin, emoji.

/// Names that break naive CSV and UI code. User `i` gets `TRICKY[i % 50]` when it exists, so
/// every run of 50 users holds each kind at least once.
pub const TRICKY: &[&str] = &[
    "O'Brien, Seán",
    "Ana \"Nana\" Souza",
    "Jordan\nLee",
    "张伟",
    "Дмитрий Иванов",
    "محمد الأحمد",
    "Zoë 🚀 Quinn",
    "=SUM(A1:A9)",
    "+49 Caller",
    "-Dash Minus",
    "@mention Handle",
    "\tTab Leading",
    "Carriage\rReturn",
    "Ñandú; Semi;colon",
];

pub const FIRST: &[&str] = &[
    "Anna", "Ben", "Clara", "David", "Emma", "Felix", "Greta", "Hugo", "Ines", "Jonas", "Katrin", "Lukas", "Marie",
    "Noah", "Olivia", "Paul", "Quentin", "Rosa", "Simon", "Tara", "Uwe", "Vera", "William", "Xenia", "Yusuf", "Zara",
    "Amir", "Bianca", "Chen", "Dara", "Elif", "Farid", "Giulia", "Hannah", "Ivan", "Julia", "Kenji", "Lea", "Mateo",
    "Nina",
];

pub const LAST: &[&str] = &[
    "Schmidt",
    "Müller",
    "Garcia",
    "Smith",
    "Nguyen",
    "Rossi",
    "Dubois",
    "Kowalski",
    "Jansen",
    "Silva",
    "Novak",
    "Larsen",
    "Yilmaz",
    "Tanaka",
    "Okafor",
    "Murphy",
    "Fischer",
    "Weber",
    "Hoffmann",
    "Schulz",
    "Martin",
    "Bernard",
    "Moreau",
    "Kim",
    "Patel",
    "Costa",
    "Horvat",
    "Lindqvist",
    "Andersen",
    "Popescu",
];

pub const DEPARTMENTS: &[&str] = &["Sales", "Engineering", "HR", "Finance", "Support", "Operations"];

pub const LOCATIONS: &[&str] = &["Berlin", "Paris", "London", "São Paulo", "東京", "New York"];

pub const GROUP_WORDS: &[&str] = &[
    "Sales",
    "Engineering",
    "Onboarding",
    "Leadership",
    "Safety",
    "Compliance",
    "Support",
    "Field Team",
    "Night Shift",
    "Apprentices",
];

pub const TOPICS: &[&str] = &[
    "Data Protection Basics",
    "Fire Safety",
    "Leading Remote Teams",
    "Negotiation",
    "Customer Empathy",
    "Excel for Analysts",
    "Anti-Bribery",
    "First Aid",
    "Giving Feedback",
    "Project Management",
    "Time Management",
    "Information Security",
    "Diversity & Inclusion",
    "Public Speaking",
    "Product Onboarding",
];

pub const MODULE_WORDS: &[&str] = &["Introduction", "Foundations", "Practice", "Case Study", "Deep Dive", "Assessment"];
