//! The nested variant's query side: the user with their learning data as fields
//! (`registrations` a Relay connection counted by `totalCount`, `trainingStatus` and
//! `certificates` plain lists), sessions searchable by title, groups; offset cursors.

use async_graphql::{
    Context, Enum, ID, InputValueError, InputValueResult, Object, Result, Scalar, ScalarType, SimpleObject, Value,
};
use chrono::{DateTime, Duration, NaiveDate, Utc};

use super::Nested;
use crate::sandbox::data::{
    CertificateRec, Db, EnrollmentRec, EnrollmentStatus, MAX_PAGE_SIZE, OfferRec, ProgressRec, Seq, UserRec,
};
use crate::sandbox::minimal::cursor;

/// A calendar day, `2026-05-03`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Date(pub NaiveDate);

#[Scalar(name = "Date")]
impl ScalarType for Date {
    fn parse(value: Value) -> InputValueResult<Self> {
        match &value {
            Value::String(text) => NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .map(Date)
                .map_err(|_| InputValueError::custom("Enter a valid date (YYYY-MM-DD).")),
            _ => Err(InputValueError::expected_type(value)),
        }
    }

    fn to_value(&self) -> Value {
        Value::String(self.0.format("%Y-%m-%d").to_string())
    }
}

/// Where a registration stands.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
#[graphql(name = "RegistrationStatus")]
pub enum RegistrationStatus {
    Requested,
    Confirmed,
    Waitlisted,
    Cancelled,
    Attended,
    NoShow,
}

impl From<EnrollmentStatus> for RegistrationStatus {
    fn from(status: EnrollmentStatus) -> Self {
        match status {
            EnrollmentStatus::Requested => RegistrationStatus::Requested,
            EnrollmentStatus::Confirmed => RegistrationStatus::Confirmed,
            EnrollmentStatus::Waitlisted => RegistrationStatus::Waitlisted,
            EnrollmentStatus::Cancelled => RegistrationStatus::Cancelled,
            EnrollmentStatus::Attended => RegistrationStatus::Attended,
            EnrollmentStatus::NoShow => RegistrationStatus::NoShow,
        }
    }
}

impl From<RegistrationStatus> for EnrollmentStatus {
    fn from(status: RegistrationStatus) -> Self {
        match status {
            RegistrationStatus::Requested => EnrollmentStatus::Requested,
            RegistrationStatus::Confirmed => EnrollmentStatus::Confirmed,
            RegistrationStatus::Waitlisted => EnrollmentStatus::Waitlisted,
            RegistrationStatus::Cancelled => EnrollmentStatus::Cancelled,
            RegistrationStatus::Attended => EnrollmentStatus::Attended,
            RegistrationStatus::NoShow => EnrollmentStatus::NoShow,
        }
    }
}

/// The variant's shared state of a request.
pub fn nested<'a>(ctx: &Context<'a>) -> Result<&'a Nested> {
    Ok(ctx.data::<std::sync::Arc<Nested>>()?.as_ref())
}

/// A page of `items` after the cursor `after`: the items with their cursors, and whether more
/// follow. `first` defaults to 50 and is capped to 50.
fn page<T>(items: Vec<T>, first: Option<i32>, after: Option<&str>) -> Result<(Vec<(String, T)>, bool)> {
    let first = first.unwrap_or(MAX_PAGE_SIZE);
    if first < 1 {
        return Err("Argument 'first' must be positive.".into());
    }
    let first = usize::try_from(first.min(MAX_PAGE_SIZE)).unwrap_or(1);
    let start = match after {
        None => 0,
        Some(after) => match cursor::decode(after) {
            Some(offset) if offset < items.len() => offset + 1,
            _ => return Err("Invalid cursor.".into()),
        },
    };
    let more = items.len() > start + first;
    let taken = items.into_iter().enumerate().skip(start).take(first).map(|(i, t)| (cursor::encode(i), t)).collect();
    Ok((taken, more))
}

fn page_info<T>(edges: &[(String, T)], more: bool) -> PageInfo {
    PageInfo { has_next_page: more, end_cursor: edges.last().map(|(c, _)| c.clone()) }
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Paging of a connection.
#[derive(SimpleObject, Debug, Clone)]
#[graphql(name = "PageInfo")]
pub struct PageInfo {
    pub has_next_page: bool,
    pub end_cursor: Option<String>,
}

/// A user and their cursor.
#[derive(SimpleObject)]
#[graphql(name = "UserEdge")]
pub struct UserEdge {
    pub node: User,
    pub cursor: String,
}

/// A page of users.
#[derive(SimpleObject)]
#[graphql(name = "UserConnection")]
pub struct UserConnection {
    pub edges: Vec<UserEdge>,
    pub page_info: PageInfo,
    /// Users matching, on every page.
    pub count: i32,
}

/// A page of users among `users`.
pub fn users_page(users: Vec<UserRec>, first: Option<i32>, after: Option<&str>) -> Result<UserConnection> {
    let total = users.len();
    let (edges, more) = page(users, first, after)?;
    let page_info = page_info(&edges, more);
    let edges = edges.into_iter().map(|(cursor, u)| UserEdge { node: User(u), cursor }).collect();
    Ok(UserConnection { edges, page_info, count: count(total) })
}

/// A registration and its cursor.
#[derive(SimpleObject)]
#[graphql(name = "RegistrationEdge")]
pub struct RegistrationEdge {
    pub node: Registration,
    pub cursor: String,
}

/// A page of a user's registrations.
#[derive(SimpleObject)]
#[graphql(name = "RegistrationConnection")]
pub struct RegistrationConnection {
    pub edges: Vec<RegistrationEdge>,
    pub page_info: PageInfo,
    /// Registrations of the user, on every page.
    pub total_count: i32,
}

/// A session and its cursor.
#[derive(SimpleObject)]
#[graphql(name = "SessionEdge")]
pub struct SessionEdge {
    pub node: Session,
    pub cursor: String,
}

/// A page of sessions.
#[derive(SimpleObject)]
#[graphql(name = "SessionConnection")]
pub struct SessionConnection {
    pub edges: Vec<SessionEdge>,
    pub page_info: PageInfo,
}

/// A course (a training of the platform).
#[derive(SimpleObject, Debug, Clone)]
#[graphql(name = "Course")]
pub struct Course {
    pub id: ID,
    pub title: String,
}

/// The course an offer is of: its training, or its module group when it has none.
fn course_of_offer(db: &Db, offer: &OfferRec) -> Course {
    let group = db.module_groups.by_seq(offer.module_group);
    match group.and_then(|g| g.training).and_then(|t| db.trainings.by_seq(t)) {
        Some(training) => Course { id: ID(training.id.clone()), title: training.title.clone() },
        None => Course {
            id: ID(group.map(|g| g.id.clone()).unwrap_or_default()),
            title: group.map(|g| g.title.clone()).unwrap_or_default(),
        },
    }
}

fn course_of_training(db: &Db, training: Seq) -> Course {
    let training = db.trainings.by_seq(training);
    Course {
        id: ID(training.map(|t| t.id.clone()).unwrap_or_default()),
        title: training.map(|t| t.title.clone()).unwrap_or_default(),
    }
}

/// A person of the organization.
pub struct User(pub UserRec);

#[Object(name = "User")]
impl User {
    async fn id(&self) -> ID {
        ID(self.0.id.clone())
    }
    #[graphql(name = "ref")]
    async fn ref_(&self) -> &str {
        &self.0.ref_
    }
    async fn name(&self) -> &str {
        &self.0.name
    }
    async fn email(&self) -> &str {
        &self.0.email
    }
    async fn is_active(&self) -> bool {
        self.0.is_active
    }
    async fn department(&self, ctx: &Context<'_>) -> Result<Option<String>> {
        Ok(nested(ctx)?.profile(&self.0).department)
    }
    async fn locale(&self, ctx: &Context<'_>) -> Result<Option<String>> {
        Ok(nested(ctx)?.profile(&self.0).locale)
    }
    async fn hired_on(&self) -> Date {
        Date(self.0.created_at.date_naive())
    }
    #[graphql(deprecation = "Replaced by ref.")]
    async fn legacy_code(&self) -> String {
        format!("L-{}", self.0.seq)
    }
    /// The user's registrations to sessions, oldest first.
    async fn registrations(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<RegistrationConnection> {
        let db = nested(ctx)?.db.read();
        let mine: Vec<EnrollmentRec> = db.enrollments.iter().filter(|e| e.user == self.0.seq).cloned().collect();
        let total = mine.len();
        let (edges, more) = page(mine, first, after.as_deref())?;
        let page_info = page_info(&edges, more);
        let edges =
            edges.into_iter().map(|(cursor, e)| RegistrationEdge { node: Registration::of(&db, &e), cursor }).collect();
        Ok(RegistrationConnection { edges, page_info, total_count: count(total) })
    }
    /// How far the user is through each course begun.
    async fn training_status(&self, ctx: &Context<'_>) -> Result<Vec<TrainingStatus>> {
        let db = nested(ctx)?.db.read();
        let mine = db.progress.iter().filter(|p| p.user == self.0.seq);
        Ok(mine.map(|p: &ProgressRec| TrainingStatus::of(&db, p)).collect())
    }
    /// The certificates issued to the user; some expire.
    async fn certificates(&self, ctx: &Context<'_>) -> Result<Vec<Certificate>> {
        let db = nested(ctx)?.db.read();
        let mine = db.certificates.iter().filter(|c| c.user == self.0.seq);
        Ok(mine.map(|c: &CertificateRec| Certificate::of(&db, c)).collect())
    }
    async fn groups(&self, ctx: &Context<'_>) -> Result<Vec<Group>> {
        let db = nested(ctx)?.db.read();
        Ok(self.0.groups.iter().filter_map(|g| db.groups.by_seq(*g)).map(|g| Group(g.clone())).collect())
    }
}

/// A user's registration to a session.
pub struct Registration {
    rec: EnrollmentRec,
    session: Option<Session>,
    user: Option<UserRec>,
}

impl Registration {
    /// The registration with what it points to.
    pub fn of(db: &Db, rec: &EnrollmentRec) -> Registration {
        Registration {
            rec: rec.clone(),
            session: db.offers.by_seq(rec.offer).map(|o| Session::of(db, o)),
            user: db.users.by_seq(rec.user).cloned(),
        }
    }
}

#[Object(name = "Registration")]
impl Registration {
    async fn id(&self) -> ID {
        ID(self.rec.id.clone())
    }
    async fn status(&self) -> RegistrationStatus {
        self.rec.status.into()
    }
    async fn registered_at(&self) -> DateTime<Utc> {
        self.rec.updated_at
    }
    async fn session(&self) -> Result<&Session> {
        self.session.as_ref().ok_or_else(|| "The session was deleted.".into())
    }
    async fn user(&self) -> Result<User> {
        self.user.clone().map(User).ok_or_else(|| "The user was deleted.".into())
    }
}

/// A dated session of a course.
#[derive(Clone)]
pub struct Session {
    rec: OfferRec,
    course: Course,
}

impl Session {
    /// The session of an offer.
    pub fn of(db: &Db, offer: &OfferRec) -> Session {
        Session { rec: offer.clone(), course: course_of_offer(db, offer) }
    }
}

#[Object(name = "Session")]
impl Session {
    async fn id(&self) -> ID {
        ID(self.rec.id.clone())
    }
    async fn title(&self) -> &str {
        &self.rec.title
    }
    async fn starts_at(&self) -> DateTime<Utc> {
        self.rec.starts_at
    }
    async fn ends_at(&self) -> DateTime<Utc> {
        self.rec.ends_at
    }
    async fn course(&self) -> &Course {
        &self.course
    }
}

/// How far a user is through a course.
#[derive(SimpleObject)]
#[graphql(name = "TrainingStatus")]
pub struct TrainingStatus {
    pub course: Course,
    pub progress_percent: f64,
    pub completed_at: Option<DateTime<Utc>>,
}

impl TrainingStatus {
    fn of(db: &Db, p: &ProgressRec) -> TrainingStatus {
        TrainingStatus {
            course: course_of_training(db, p.training),
            progress_percent: f64::from(p.percent),
            completed_at: p.completed_at,
        }
    }
}

/// A certificate for a completed course.
#[derive(SimpleObject)]
#[graphql(name = "Certificate")]
pub struct Certificate {
    pub id: ID,
    pub course: Course,
    pub issued_on: Date,
    /// After this day the certificate no longer holds; none: it does not expire.
    pub expires_on: Option<Date>,
}

impl Certificate {
    fn of(db: &Db, c: &CertificateRec) -> Certificate {
        let issued = c.issued_at.date_naive();
        Certificate {
            id: ID(c.id.clone()),
            course: course_of_training(db, c.training),
            issued_on: Date(issued),
            // Every other certificate holds a year: those issued before last year have expired.
            expires_on: (c.seq % 2 == 1).then(|| Date(issued + Duration::days(365))),
        }
    }
}

/// A group of users.
pub struct Group(pub crate::sandbox::data::GroupRec);

#[Object(name = "Group")]
impl Group {
    async fn id(&self) -> ID {
        ID(self.0.id.clone())
    }
    #[graphql(name = "ref")]
    async fn ref_(&self) -> &str {
        &self.0.ref_
    }
    async fn name(&self) -> &str {
        &self.0.name
    }
    async fn members(&self, ctx: &Context<'_>, first: Option<i32>, after: Option<String>) -> Result<UserConnection> {
        let db = nested(ctx)?.db.read();
        let users = self.0.members.iter().filter_map(|s| db.users.by_seq(*s)).cloned().collect();
        users_page(users, first, after.as_deref())
    }
    async fn managers(&self, ctx: &Context<'_>) -> Result<Vec<User>> {
        let db = nested(ctx)?.db.read();
        Ok(self.0.managers.iter().filter_map(|s| db.users.by_seq(*s)).map(|u| User(u.clone())).collect())
    }
}

/// The reads.
pub struct QueryRoot;

#[Object(name = "Query")]
impl QueryRoot {
    /// Null (and no error) when no user has this ref.
    async fn user(&self, ctx: &Context<'_>, #[graphql(name = "ref")] ref_: String) -> Result<Option<User>> {
        Ok(nested(ctx)?.db.read().users.get(&ref_).map(|u| User(u.clone())))
    }

    /// Users, 50 at most a page, filtered by ref.
    async fn paginated_users(
        &self,
        ctx: &Context<'_>,
        first: i32,
        after: Option<String>,
        #[graphql(name = "ref")] ref_: Option<String>,
    ) -> Result<UserConnection> {
        let db = nested(ctx)?.db.read();
        let users = db.users.iter().filter(|u| ref_.as_ref().is_none_or(|r| &u.ref_ == r)).cloned().collect();
        users_page(users, Some(first), after.as_deref())
    }

    /// Sessions whose title holds `search` (any case), by start.
    async fn sessions(
        &self,
        ctx: &Context<'_>,
        search: Option<String>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<SessionConnection> {
        let db = nested(ctx)?.db.read();
        let wanted = search.as_deref().map(str::trim).unwrap_or_default().to_lowercase();
        let sessions: Vec<Session> = db
            .offers
            .iter()
            .filter(|o| wanted.is_empty() || o.title.to_lowercase().contains(&wanted))
            .map(|o| Session::of(&db, o))
            .collect();
        let (edges, more) = page(sessions, first, after.as_deref())?;
        let page_info = page_info(&edges, more);
        let edges = edges.into_iter().map(|(cursor, node)| SessionEdge { node, cursor }).collect();
        Ok(SessionConnection { edges, page_info })
    }

    /// Groups whose name holds `search` (any case), a plain list of `first` (50) at most.
    async fn groups(&self, ctx: &Context<'_>, search: Option<String>, first: Option<i32>) -> Result<Vec<Group>> {
        let db = nested(ctx)?.db.read();
        let wanted = search.as_deref().map(str::trim).unwrap_or_default().to_lowercase();
        let first = usize::try_from(first.unwrap_or(MAX_PAGE_SIZE).clamp(1, MAX_PAGE_SIZE)).unwrap_or(1);
        Ok(db
            .groups
            .iter()
            .filter(|g| wanted.is_empty() || g.name.to_lowercase().contains(&wanted))
            .take(first)
            .map(|g| Group(g.clone()))
            .collect())
    }

    /// A group by ref; null when there is none.
    async fn group(&self, ctx: &Context<'_>, #[graphql(name = "ref")] ref_: String) -> Result<Option<Group>> {
        Ok(nested(ctx)?.db.read().groups.get(&ref_).map(|g| Group(g.clone())))
    }
}
