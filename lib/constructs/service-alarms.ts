import { Duration } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { acknowledge } from './acknowledge.js';

/** One function watched for errors (and, when it has reserved concurrency, throttles). */
export interface WatchedFunction {
  /** Names its alarms: `Errors<name>`, `Throttles<name>`. PascalCase; never change it. */
  readonly name: string;
  readonly fn: lambda.IFunction;
  /**
   * Errors in 5 minutes that page. Pipeline stages throw by design for documents that cannot be
   * parsed (the state machine catches and records them), so they page on a run of errors.
   */
  readonly errorThreshold: number;
  /** The function has reserved concurrency: a throttle means it is at its ceiling. */
  readonly reserved?: boolean;
}

export interface ServiceAlarmsProps {
  readonly api: apigateway.RestApi;
  readonly stateMachine: sfn.StateMachine;
  /** Each dead-letter queue by a PascalCase name (`Dlq<name>` alarms). */
  readonly deadLetterQueues: Readonly<Record<string, sqs.IQueue>>;
  readonly functions: readonly WatchedFunction[];
  /**
   * Subscribed to the alarm topic by mail (AWS mails a confirmation link first).
   * @default - none: subscribe to the topic (`AlarmTopicArn` output) yourself
   */
  readonly email?: string;
}

/**
 * Thresholds of the alarms, per 5-minute period. Executions fail for documents the service
 * refuses too (corrupt, encrypted, over a limit), so a few failures are ordinary; a timeout or a
 * throttle never is. The API's 5xx include 503 when every provider of a tier is circuit-broken.
 */
export const ALARM_THRESHOLDS = {
  deadLetterMessages: 1,
  executionsFailed: 5,
  executionsTimedOut: 1,
  executionsThrottled: 1,
  api5xx: 5,
  functionThrottles: 1,
  accountThrottles: 1,
} as const;

const PERIOD = Duration.minutes(5);

/**
 * What an operator is paged for, through one SNS topic: a message in any dead-letter queue,
 * parse executions failing, timing out or throttled, a function's errors, a throttled function
 * with reserved concurrency or throttles anywhere in the account's Lambda pool, and API 5xx.
 * Alarms notify when they fire and when they recover; missing data (no traffic) is not a breach.
 * A dashboard shows the same metrics with the alarms' states.
 */
export class ServiceAlarms extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: readonly cloudwatch.Alarm[];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'Topic', {
      displayName: 'docparse alarms',
      enforceSSL: true,
    });
    acknowledge(this.topic, [
      {
        id: 'AwsSolutions-SNS2',
        reason:
          'Alarm notifications carry alarm names and metric values only, no document content; CloudWatch cannot publish to a topic under the AWS managed SNS key, and a customer managed key would need a key policy for CloudWatch and cost a key per deployment.',
      },
    ]);
    if (props.email) this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));
    const notify = new actions.SnsAction(this.topic);
    const alarms: cloudwatch.Alarm[] = [];
    const alarm = (
      alarmId: string,
      metric: cloudwatch.IMetric,
      threshold: number,
      description: string,
    ): cloudwatch.Alarm => {
      const created = new cloudwatch.Alarm(this, alarmId, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      created.addAlarmAction(notify);
      created.addOkAction(notify);
      alarms.push(created);
      return created;
    };

    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      alarm(
        `Dlq${name}`,
        queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
        ALARM_THRESHOLDS.deadLetterMessages,
        `A message is in the ${name} dead-letter queue: it failed every delivery. Read it, fix the cause, then redrive or delete it.`,
      );
    }

    const sm = props.stateMachine;
    alarm(
      'ExecutionsFailed',
      sm.metricFailed({ period: PERIOD, statistic: 'Sum' }),
      ALARM_THRESHOLDS.executionsFailed,
      `${String(ALARM_THRESHOLDS.executionsFailed)} or more parse executions failed in 5 minutes (refused documents count too). Look at the failed executions' RecordFailure input and the stage logs.`,
    );
    alarm(
      'ExecutionsTimedOut',
      sm.metricTimedOut({ period: PERIOD, statistic: 'Sum' }),
      ALARM_THRESHOLDS.executionsTimedOut,
      'A parse execution ran past the state machine timeout; its request may stay processing.',
    );
    alarm(
      'ExecutionsThrottled',
      sm.metricThrottled({ period: PERIOD, statistic: 'Sum' }),
      ALARM_THRESHOLDS.executionsThrottled,
      'Step Functions throttled state transitions or execution starts of the parse state machine.',
    );
    alarm(
      'Api5xx',
      props.api.deploymentStage.metricServerError({ period: PERIOD, statistic: 'Sum' }),
      ALARM_THRESHOLDS.api5xx,
      `The API answered ${String(ALARM_THRESHOLDS.api5xx)} or more 5xx in 5 minutes (500: a handler failed; 502/504: a function crashed or timed out; 503: every provider of a tier is circuit-broken).`,
    );

    for (const watched of props.functions) {
      alarm(
        `Errors${watched.name}`,
        watched.fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        watched.errorThreshold,
        `The ${watched.name} function failed ${String(watched.errorThreshold)} or more times in 5 minutes (unhandled errors and timeouts). Read its log group.`,
      );
      if (watched.reserved) {
        alarm(
          `Throttles${watched.name}`,
          watched.fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
          ALARM_THRESHOLDS.functionThrottles,
          `The ${watched.name} function was throttled at its reserved concurrency: raise the setting if this is ordinary load.`,
        );
      }
    }
    // Functions without a reservation share the account's pool: a throttle there means the pool
    // is exhausted, by this service or by anything else in the account and Region.
    alarm(
      'LambdaThrottles',
      new cloudwatch.Metric({
        namespace: 'AWS/Lambda',
        metricName: 'Throttles',
        period: PERIOD,
        statistic: 'Sum',
      }),
      ALARM_THRESHOLDS.accountThrottles,
      "Lambda throttled functions of this account and Region: its concurrency pool is exhausted, and this service's unreserved functions are refused.",
    );
    this.alarms = alarms;
    this.dashboard = this.#dashboard(props, alarms);
  }

  #dashboard(props: ServiceAlarmsProps, alarms: cloudwatch.Alarm[]): cloudwatch.Dashboard {
    const stage = props.api.deploymentStage;
    const sm = props.stateMachine;
    const sum = { period: PERIOD, statistic: 'Sum' };
    const reserved = props.functions.filter((f) => f.reserved);
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(24),
    });
    dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms, width: 24, height: 4 }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'API requests',
        left: [stage.metricCount(sum), stage.metricClientError(sum), stage.metricServerError(sum)],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'API latency',
        left: [stage.metricLatency({ period: PERIOD, statistic: 'p99' })],
        right: [stage.metricIntegrationLatency({ period: PERIOD, statistic: 'p99' })],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Parse executions',
        left: [
          sm.metricStarted(sum),
          sm.metricSucceeded(sum),
          sm.metricFailed(sum),
          sm.metricAborted(sum),
          sm.metricTimedOut(sum),
          sm.metricThrottled(sum),
        ],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Dead-letter queues (messages)',
        left: Object.entries(props.deadLetterQueues).map(([name, q]) =>
          q.metricApproximateNumberOfMessagesVisible({
            period: PERIOD,
            statistic: 'Maximum',
            label: name,
          }),
        ),
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Function errors',
        left: props.functions.map((f) => f.fn.metricErrors({ ...sum, label: f.name })),
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Throttles and concurrency',
        left: reserved.map((f) => f.fn.metricThrottles({ ...sum, label: `${f.name} throttles` })),
        right: [
          new cloudwatch.Metric({
            namespace: 'AWS/Lambda',
            metricName: 'ConcurrentExecutions',
            period: PERIOD,
            statistic: 'Maximum',
            label: 'account concurrency',
          }),
          ...reserved.map((f) =>
            f.fn.metric('ConcurrentExecutions', {
              period: PERIOD,
              statistic: 'Maximum',
              label: `${f.name} concurrency`,
            }),
          ),
        ],
        width: 12,
      }),
    );
    return dashboard;
  }
}
